//! A run stopped from outside: Ctrl-C (SIGINT), a CI job's timeout (SIGTERM), a closed
//! terminal (SIGHUP). What the run made for itself alone (`scan`'s temporary tree, `fix`'s
//! temporary copies) is removed before the process ends, a scanner it runs is stopped
//! with it, and a multi-file write that has begun replacing files finishes first, so that
//! no change is left half applied. SIGKILL cannot be caught: what it leaves, the next
//! run finds (`super::write` removes the temporary copies of a `fix` killed before it
//! replaced its files, and says which files it did not reach).
//!
//! The signals are taken on a thread of their own once [`watch`] is called. Code that
//! writes into a registered place holds [`hold`] while it does, so that the removal
//! never races a write that would bring a directory back.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// What a stop must undo.
struct State {
    /// Paths to remove (directories whole).
    paths: Vec<PathBuf>,
    /// The running child, to stop with us.
    child: Option<u32>,
    /// The signal that stopped the run while a child ran: the run ends once it has.
    stopped: Option<i32>,
}

static STATE: Mutex<State> = Mutex::new(State { paths: Vec::new(), child: None, stopped: None });

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts taking the stopping signals (once; later calls do nothing). Commands that make
/// nothing to undo never call it, and keep the default: they end at once.
pub(super) fn watch() {
    #[cfg(unix)]
    {
        static WATCHING: std::sync::Once = std::sync::Once::new();
        WATCHING.call_once(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            else {
                return;
            };
            let _ = std::thread::Builder::new().name("signals".into()).spawn(move || {
                for sig in signals.forever() {
                    stopped(sig);
                }
            });
        });
    }
}

/// What a stopping signal does: passed on to a running child (the run ends when it
/// has), else everything registered is removed and the process ends, 128 + the signal.
#[cfg(unix)]
fn stopped(sig: i32) {
    let mut st = state();
    if let Some(pid) = st.child {
        st.stopped = Some(sig);
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: kill has no memory effects; the child is not reaped while it is
            // registered (see `Child::wait`), so its id cannot name another process.
            unsafe { libc::kill(pid, sig) };
        }
        return;
    }
    for p in std::mem::take(&mut st.paths) {
        remove(&p);
    }
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("override-guard: stopped by signal {sig}\n").as_bytes(),
    );
    // The lock stays held: no writer resumes before the process is gone.
    std::process::exit(128 + sig);
}

#[cfg(unix)]
fn remove(p: &std::path::Path) {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(p);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(p);
        }
        Err(_) => {}
    }
}

/// A path removed if the run is stopped, until this is dropped.
pub(super) struct Registered(PathBuf);

/// Registers `path` for removal on a stop.
pub(super) fn register(path: PathBuf) -> Registered {
    state().paths.push(path.clone());
    Registered(path)
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut st = state();
        if let Some(i) = st.paths.iter().position(|p| *p == self.0) {
            st.paths.swap_remove(i);
        }
    }
}

/// Held while writing into a registered place, or while a multi-file change replaces
/// its files: a stop waits for it to be dropped.
pub(super) fn hold() -> MutexGuard<'static, impl Sized> {
    state()
}

/// A child process that is stopped with the run: a stopping signal is passed on to it,
/// and the run ends (with [`Child::wait`]'s answer) once it has.
pub(super) struct Child(std::process::Child);

impl Child {
    pub(super) fn spawn(cmd: &mut std::process::Command) -> std::io::Result<Child> {
        let mut st = state();
        let child = cmd.spawn()?;
        st.child = Some(child.id());
        Ok(Child(child))
    }

    pub(super) fn stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.0.stdout.take()
    }

    /// Waits for the child to end. Its id is let go (under the lock) before it is reaped,
    /// so a signal never reaches a process that took the id over. `Err(signal)` when a
    /// stopping signal ended the run meanwhile.
    pub(super) fn wait(mut self) -> std::io::Result<Result<std::process::ExitStatus, i32>> {
        #[cfg(unix)]
        exited_unreaped(self.0.id())?;
        let stopped = {
            let mut st = state();
            st.child = None;
            st.stopped.take()
        };
        let status = self.0.wait()?;
        Ok(match stopped {
            Some(sig) => Err(sig),
            None => Ok(status),
        })
    }
}

/// Blocks until the child `pid` has ended, leaving it a zombie (`WNOWAIT`): its id stays
/// taken until it is reaped.
#[cfg(unix)]
fn exited_unreaped(pid: u32) -> std::io::Result<()> {
    loop {
        // SAFETY: `info` is a plain struct the call fills in; all-zero is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to `info`; waitid does nothing else with memory.
        let r = unsafe {
            libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT)
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
