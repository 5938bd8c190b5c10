/*
 * lolwut_art.c - LOLWUT's pictures, as Redis 7.0 draws them. VERSION 5:
 * Georg Nees's "Schotter" (1968), squares that tilt and shift more the
 * lower their row, on a canvas of pixels printed as braille characters (2x4
 * pixels each), as lolwut5.c. VERSION 6: a city skyline in the four greys
 * of a colour terminal, one character a pixel, as lolwut6.c; all random.
 *
 * Owns the canvas for one call (allocated and freed here) and the text it
 * returns (the caller frees it). The arithmetic keeps Redis's types (float
 * sizes and angles, int pixels, round() and a truncating int conversion
 * where Redis has them), so a picture without randomness (two rows or
 * fewer: only the rows below the second are shaken) is Redis's to the
 * byte. The shaking and the skyline draw from rbkv's fastrand where Redis
 * draws from the libc's rand() seeded with the clock and its pid at start:
 * no two servers give the same picture there, nor does one twice.
 */
#include "lolwut_art.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fastrand.h"
#include "mem.h"

struct canvas {
    int width, height;
    unsigned char *pixels; /* width * height, 0 or 1, row by row */
};

/* A canvas of width x height pixels of colour bg. */
static void canvas_init(struct canvas *cv, int width, int height, unsigned char bg)
{
    cv->width = width;
    cv->height = height;
    cv->pixels = xmalloc((size_t)width * (size_t)height + 1);
    memset(cv->pixels, bg, (size_t)width * (size_t)height + 1);
}

/* Writes outside the canvas are dropped, as Redis's lwDrawPixel. */
static void draw_pixel(struct canvas *cv, int x, int y, int color)
{
    if (x < 0 || x >= cv->width || y < 0 || y >= cv->height)
        return;
    cv->pixels[(size_t)y * (size_t)cv->width + (size_t)x] = (unsigned char)color;
}

static int get_pixel(const struct canvas *cv, int x, int y)
{
    if (x < 0 || x >= cv->width || y < 0 || y >= cv->height)
        return 0;
    return cv->pixels[(size_t)y * (size_t)cv->width + (size_t)x];
}

/* Bresenham's line from (x1, y1) to (x2, y2), both ends drawn. */
static void draw_line(struct canvas *cv, int x1, int y1, int x2, int y2)
{
    int dx = abs(x2 - x1), dy = abs(y2 - y1);
    int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    for (;;) {
        draw_pixel(cv, x1, y1, 1);
        if (x1 == x2 && y1 == y2)
            break;
        int e2 = err * 2;
        if (e2 > -dy) {
            err -= dy;
            x1 += sx;
        }
        if (e2 < dx) {
            err += dx;
            y1 += sy;
        }
    }
}

/* A square of side size centred at (x, y), turned by angle: its corners
 * are points of the circle around it, 90 degrees apart from 45 + angle. */
static void draw_square(struct canvas *cv, int x, int y, float size, float angle)
{
    int px[4], py[4];
    /* The inscribed square of a unit circle has side sqrt(2). The
     * constant and the float roundings are Redis's. */
    size = (float)(size / 1.4142135623);
    size = roundf(size);
    float k = (float)(M_PI / 4 + angle);
    for (int j = 0; j < 4; j++) {
        px[j] = (int)round(sin((double)k) * size + x);
        py[j] = (int)round(cos((double)k) * size + y);
        k = (float)(k + M_PI / 2);
    }
    for (int j = 0; j < 4; j++)
        draw_line(cv, px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4]);
}

/* A random float in [0, 1], as Redis's (float)rand() / RAND_MAX. */
static float unit_random(void)
{
    return (float)(fastrand() & 0x7fffffff) / (float)0x7fffffff;
}

static void draw_schotter(struct canvas *cv, int cols, int per_row, int per_col)
{
    int padding = cv->width > 4 ? 2 : 0;
    float side = (float)(cols * 2 - padding * 2) / (float)per_row;
    for (int y = 0; y < per_col; y++) {
        for (int x = 0; x < per_row; x++) {
            int sx = (int)((float)x * side + side / 2 + (float)padding);
            int sy = (int)((float)y * side + side / 2 + (float)padding);
            float angle = 0;
            if (y > 1) {
                float r1 = unit_random() / (float)per_col * (float)y;
                float r2 = unit_random() / (float)per_col * (float)y;
                float r3 = unit_random() / (float)per_col * (float)y;
                if (fastrand() & 1)
                    r1 = -r1;
                if (fastrand() & 1)
                    r2 = -r2;
                if (fastrand() & 1)
                    r3 = -r3;
                angle = r1;
                sx = (int)((float)sx + r2 * side / 3);
                sy = (int)((float)sy + r3 * side / 3);
            }
            draw_square(cv, sx, sy, side, angle);
        }
    }
}

/* The braille character (U+2800 + bits) for the 2x4 pixels at (x, y), bit
 * i set for the pixel numbered i in:   0 3
 *                                      1 4
 *                                      2 5
 *                                      6 7   as UTF-8, three bytes. */
static void braille(const struct canvas *cv, int x, int y, char *out)
{
    static const int dx[8] = {0, 0, 0, 1, 1, 1, 0, 1}, dy[8] = {0, 1, 2, 0, 1, 2, 3, 3};
    int code = 0x2800;
    for (int i = 0; i < 8; i++)
        if (get_pixel(cv, x + dx[i], y + dy[i]))
            code |= 1 << i;
    out[0] = (char)(0xE0 | (code >> 12));
    out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
    out[2] = (char)(0x80 | (code & 0x3F));
}

/* Appends tail (which starts with its own newline, after the picture's),
 * version and a newline to the n bytes of text, which has room for them
 * and a NUL. Returns the new length. */
static size_t finish_text(char *text, size_t n, const char *tail, const char *version)
{
    size_t tl = strlen(tail), vl = strlen(version);
    /* Each copy with its NUL, written over by what follows. */
    memcpy(text + n, tail, tl + 1);
    memcpy(text + n + tl, version, vl + 1);
    text[n + tl + vl] = '\n';
    text[n + tl + vl + 1] = '\0';
    return n + tl + vl + 1;
}

char *lolwut_schotter(long long cols, long long per_row, long long per_col, const char *version,
                      size_t *len)
{
    /* Redis's limits, so the command stays cheap. */
    cols = cols < 1 ? 1 : cols > 1000 ? 1000 : cols;
    per_row = per_row < 1 ? 1 : per_row > 200 ? 200 : per_row;
    per_col = per_col < 1 ? 1 : per_col > 200 ? 200 : per_col;
    struct canvas cv;
    int width = (int)cols * 2;
    int padding = width > 4 ? 2 : 0;
    float side = (float)(width - padding * 2) / (float)per_row;
    int height = (int)(side * (float)per_col + (float)(padding * 2));
    if ((long long)width * height > LOLWUT_MAX_PIXELS)
        return NULL;
    canvas_init(&cv, width, height, 0);
    draw_schotter(&cv, (int)cols, (int)per_row, (int)per_col);

    static const char tail[] = "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ";
    size_t vlen = strlen(version);
    size_t rows = (size_t)(cv.height + 3) / 4, per_line = (size_t)(cv.width + 1) / 2 * 3 + 1;
    char *text = xmalloc(rows * per_line + sizeof(tail) + vlen + 2);
    size_t n = 0;
    for (int y = 0; y < cv.height; y += 4) {
        for (int x = 0; x < cv.width; x += 2, n += 3)
            braille(&cv, x, y, text + n);
        /* Redis's test, which only a height of 4k + 1 fails. */
        if (y != cv.height - 1)
            text[n++] = '\n';
    }
    xfree(cv.pixels);
    *len = finish_text(text, n, tail, version);
    return text;
}

/* A building of the skyline: a rectangle standing on the canvas's bottom
 * row, its roof two pixels narrower on each side, with windows (two pixels
 * wide, one tall, of a random one of the two greys) if asked. */
struct skyscraper {
    int xoff, width, height, windows, color;
};

static void draw_skyscraper(struct canvas *cv, const struct skyscraper *si)
{
    int starty = cv->height - 1, endy = starty - si->height + 1;
    for (int y = starty; y >= endy; y--) {
        for (int x = si->xoff; x < si->xoff + si->width; x++) {
            if (y == endy && (x <= si->xoff + 1 || x >= si->xoff + si->width - 2))
                continue;
            int color = si->color;
            if (si->windows && x > si->xoff + 1 && x < si->xoff + si->width - 2 && y > endy + 1 &&
                y < starty - 1) {
                int relx = x - (si->xoff + 1), rely = y - (endy + 1);
                if (relx / 2 % 2 && rely % 2) {
                    do {
                        color = 1 + (int)fastrand_below(2);
                    } while (color == si->color);
                    /* The window's second pixel takes its first's colour. */
                    if (relx % 2)
                        color = get_pixel(cv, x - 1, y);
                }
            }
            draw_pixel(cv, x, y, color);
        }
    }
}

/* Redis's skyline: two rows of windowless buildings behind (the lighter
 * grey first, so it stays at the back), then black ones with windows. The
 * integer arithmetic is Redis's ((r % h) / 2 where it wrote r%h/2). */
static void draw_skyline(struct canvas *cv)
{
    struct skyscraper si;
    int h = cv->height;
    for (int color = 2; color >= 1; color--) {
        si.color = color;
        for (int offset = -10; offset < cv->width;) {
            offset += (int)fastrand_below(8);
            si.xoff = offset;
            si.width = 10 + (int)fastrand_below(9);
            si.height = h / 2 + (int)(fastrand() % (uint64_t)h) / (color == 2 ? 2 : 3);
            si.windows = 0;
            draw_skyscraper(cv, &si);
            offset += color == 2 ? si.width / 2 : si.width + 1;
        }
    }
    si.color = 0;
    for (int offset = -10; offset < cv->width;) {
        offset += (int)fastrand_below(8);
        si.xoff = offset;
        si.width = 5 + (int)fastrand_below(14);
        if (si.width % 4)
            si.width += si.width % 3;
        si.height = h / 3 + (int)(fastrand() % (uint64_t)h) / 2;
        si.windows = 1;
        draw_skyscraper(cv, &si);
        offset += si.width + 5;
    }
}

char *lolwut_skyline(long long cols, long long rows, const char *version, size_t *len)
{
    /* Redis's escapes: foreground and background of each of the four
     * greys of a colour terminal, black to white. */
    static const char *const cell[4] = {"\033[0;30;40m \033[0m", "\033[0;90;100m \033[0m",
                                        "\033[0;37;47m \033[0m", "\033[0;97;107m \033[0m"};
    static const char tail[] = "\nDedicated to the 8 bit game developers of past and present.\n"
                               "Original 8 bit image from Plaguemon by hikikomori. Redis ver. ";
    cols = cols < 1 ? 1 : cols > 1000 ? 1000 : cols;
    rows = rows < 1 ? 1 : rows > 1000 ? 1000 : rows;
    struct canvas cv;
    canvas_init(&cv, (int)cols, (int)rows, 3);
    draw_skyline(&cv);
    size_t vlen = strlen(version), cap = (size_t)(cols + 1) * (size_t)rows * 16 + sizeof(tail) + vlen + 2;
    char *text = xmalloc(cap);
    size_t n = 0;
    for (int y = 0; y < cv.height; y++) {
        for (int x = 0; x < cv.width; x++) {
            const char *c = cell[get_pixel(&cv, x, y) & 3];
            size_t cl = strlen(c);
            memcpy(text + n, c, cl + 1); /* the NUL: room for it, written over next */
            n += cl;
        }
        if (y != cv.height - 1)
            text[n++] = '\n';
    }
    xfree(cv.pixels);
    *len = finish_text(text, n, tail, version);
    return text;
}
