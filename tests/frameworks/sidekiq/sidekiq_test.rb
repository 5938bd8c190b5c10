# Sidekiq (Debian's ruby-sidekiq 6.4.1 on ruby-redis 4.8) running real jobs against one server:
# jobs pushed with perform_async and run by an embedded Sidekiq::Launcher (the same manager,
# fetcher and scheduled-set poller the `sidekiq` command runs, with 2 threads), a job scheduled
# with perform_in that the poller moves to its queue when due, and a failing job that lands in
# the retry set (sidekiq_retry_in 1 second) and then succeeds. Jobs record what they did in this
# process, so the checks do not depend on the server beyond what Sidekiq itself asks of it.
# Run through run.sh, which exports RBKV_PORT.
require 'minitest/autorun'
require 'sidekiq'
require 'sidekiq/api'
require 'sidekiq/launcher'

PORT = Integer(ENV.fetch('RBKV_PORT') { abort 'RBKV_PORT is not set: run through tests/frameworks/sidekiq/run.sh' })
# Each wait is far longer than the job needs on an idle machine; a retry alone may take up to
# 1 + 9 s (Sidekiq adds rand(10) * (count + 1) seconds of jitter to sidekiq_retry_in's 1 s).
WAIT_SECONDS = 25

# Sidekiq 6.4 calls redis-rb 4.8 in ways 4.8 warns about on every call (positional BRPOP timeout).
Redis.silence_deprecations = true
Sidekiq.redis = { url: "redis://127.0.0.1:#{PORT}/0", reconnect_attempts: 0 }
Sidekiq.logger.level = Logger::WARN
# Poll the scheduled and retry sets about every second. poll_interval_average is set as well
# because only then does the poller skip its 10 s initial wait (Sidekiq::Scheduled::Poller#initial_wait).
Sidekiq.average_scheduled_poll_interval = 1
Sidekiq.options[:poll_interval_average] = 1
Sidekiq.options[:concurrency] = 2
Sidekiq.options[:queues] = ['default']

# What the jobs did, appended to from Sidekiq's processor threads.
RAN = Queue.new

class SumJob
  include Sidekiq::Job

  def perform(a, b)
    RAN << [:sum, a + b]
  end
end

class ScheduledJob
  include Sidekiq::Job

  def perform(tag)
    RAN << [:scheduled, tag, Time.now.to_f]
  end
end

class FlakyJob
  include Sidekiq::Job
  sidekiq_options retry: 3
  sidekiq_retry_in { |_count, _exception| 1 }
  @attempts = 0
  class << self
    attr_accessor :attempts
  end

  def perform
    self.class.attempts += 1
    raise "attempt #{self.class.attempts} fails" if self.class.attempts == 1

    RAN << [:flaky, self.class.attempts, Time.now.to_f]
  end
end

# Waits for the next recorded run of `kind`, keeping the others for their own tests.
def next_run(kind)
  deadline = Time.now + WAIT_SECONDS
  loop do
    RAN.size.times do
      run = RAN.pop
      return run if run.first == kind
      RAN << run
    end
    raise "no #{kind} job ran within #{WAIT_SECONDS} s" if Time.now > deadline

    sleep 0.05
  end
end

Sidekiq.redis(&:flushdb)
LAUNCHER = Sidekiq::Launcher.new(Sidekiq.options)
LAUNCHER.run
Minitest.after_run { LAUNCHER.stop }

class SidekiqTest < Minitest::Test
  def test_jobs_pushed_with_perform_async_run
    ids = (1..10).map { |i| SumJob.perform_async(i, 100) }
    assert_equal 10, ids.uniq.size
    sums = (1..10).map { next_run(:sum)[1] }
    assert_equal (101..110).to_a, sums.sort
  end

  def test_a_job_scheduled_with_perform_in_runs_when_due
    pushed_at = Time.now.to_f
    ScheduledJob.perform_in(2, 'later')
    scheduled = Sidekiq::ScheduledSet.new.map { |entry| entry.klass }
    assert_includes scheduled, 'ScheduledJob'
    _, tag, ran_at = next_run(:scheduled)
    assert_equal 'later', tag
    assert_operator ran_at - pushed_at, :>=, 2.0
    assert_equal 0, Sidekiq::ScheduledSet.new.size
  end

  def test_a_failing_job_is_retried_then_succeeds
    failed_at = nil
    error_seen = nil
    FlakyJob.perform_async
    # The failure puts the job in the retry set with its error until the poller re-queues it.
    deadline = Time.now + WAIT_SECONDS
    until error_seen || Time.now > deadline
      entry = Sidekiq::RetrySet.new.find { |e| e.klass == 'FlakyJob' }
      if entry
        failed_at = entry['failed_at']
        error_seen = entry['error_message']
      end
      sleep 0.05
    end
    assert_equal 'attempt 1 fails', error_seen
    _, attempts, ran_at = next_run(:flaky)
    assert_equal 2, attempts
    # sidekiq_retry_in's 1 s is the least delay between the failure and the retry.
    assert_operator ran_at - failed_at, :>=, 1.0
    assert_equal 0, Sidekiq::RetrySet.new.size
    assert_equal 0, Sidekiq::DeadSet.new.size
  end
end
