//! A child that outlives its deaths: the process the parent started forks a worker to decode
//! its payloads and waits for it; when the worker dies (a stack overflow, an abort), the
//! child says so and forks the next worker, which goes on from the payload after. A death
//! then costs a fork of a process already started and already past the test harness, not a
//! new process.
//!
//! Why this is sound: the worker is forked from the thread that runs the check, with the
//! test harness's thread blocked waiting for it, so no lock a worker needs is held by a
//! thread it lacks (glibc's fork resets its allocator's locks). A process with more threads
//! than those two (a program whose `main` started its own, a test that did) does not fork:
//! one of them could hold a lock the worker would wait on forever. The worker reads its payloads
//! unbuffered (`run::PayloadReader` on the raw standard input), so what a dead worker did not
//! read is where the next one starts.

// `fork`, `prctl` and `waitpid` are calls into libc; nothing else here is unsafe.
#![allow(unsafe_code)]

use std::io::Write;

use crate::run::DEATH_MARK;

/// In the process the parent started: returns in each worker, which reads on from wherever
/// the one before it stopped. Between workers, says `died` and the raw wait status on the
/// child's result lines for each death, and ends the process when a worker ends of itself.
/// If a fork fails, or other threads run beside the check, this process decodes as the
/// worker itself.
pub(crate) fn serve(say: &dyn Fn(&str)) {
    if threads() > HARNESS_THREADS {
        return;
    }
    loop {
        // Nothing buffered may be written twice, once by each process.
        let _ = std::io::stdout().flush();
        let server = std::process::id();
        // SAFETY: see the module's documentation; the worker goes on in this thread.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return;
        }
        if pid == 0 {
            // A worker whose server is killed (at the parent's time limit) dies with it.
            // SAFETY: `prctl` with these two integer arguments touches no memory.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
            if std::os::unix::process::parent_id() != server {
                std::process::exit(0);
            }
            return;
        }
        let status = match wait_for(pid) {
            Ok(status) => status,
            Err(e) => {
                say(&format!("no-fork\tcould not wait for the worker: {e}"));
                std::process::exit(0);
            }
        };
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "\n{DEATH_MARK}");
        say(&format!("died\t{status}"));
    }
}

/// The threads of a process running one test alone: libtest's own and the test's.
const HARNESS_THREADS: usize = 2;

/// How many threads this process has (more than any harness has, if it cannot be read).
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(usize::MAX, Iterator::count)
}

/// The raw wait status of the process `pid`.
fn wait_for(pid: libc::pid_t) -> std::io::Result<i32> {
    loop {
        let mut status = 0;
        // SAFETY: `status` is a live `c_int` for the call's length.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        if waited == pid {
            return Ok(status);
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}
