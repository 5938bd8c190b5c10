/*
 * key_specs.h - the command layer's table of explicit key specs
 * (key_specs.c), registered with keyspec_register by commands_register.
 */
#ifndef RBKV_KEY_SPECS_H
#define RBKV_KEY_SPECS_H

#include "keyspec.h"

extern const struct command_key_specs command_key_specs[];

#endif
