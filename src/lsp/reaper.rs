//! Language servers and everything they start (rust-analyzer's `cargo
//! check`, build scripts, tsserver) never outlive sextant, however sextant
//! ends.
//!
//! Each server runs in a session of its own (`setsid`), so its whole tree,
//! grandchildren included, keeps the server's pid as its session id even
//! after it is re-parented to init. That id is the handle for ending the
//! tree:
//! - when a server exits (shutdown, crash, kill), sextant ends whatever is
//!   left of its session ([`end_session`]);
//! - when sextant itself ends without running any code (SIGKILL, a panic
//!   that aborts), a small reaper process it started, `sextant` run again
//!   with [`REAPER_ARG`], sees its stdin close and ends the sessions it was
//!   told about. The reaper is only started by the `sextant` binary
//!   ([`enable`]); servers also get a parent-death signal, which ends them
//!   (not their children) even without it.
//!
//! Session scanning reads `/proc`, so on other systems only the
//! parent-death signal and `kill_on_drop` apply.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::sync::lock;

/// The first argument that makes `sextant` run as the reaper.
pub const REAPER_ARG: &str = "__reaper";

/// The binary to start the reaper from, set by [`enable`]; the reaper's
/// stdin once started (`None` if it could not be).
static REAPER_EXE: OnceLock<PathBuf> = OnceLock::new();
static REAPER: OnceLock<Option<Mutex<ChildStdin>>> = OnceLock::new();

/// Lets servers started from now on be ended by a reaper process run from
/// `exe` (the `sextant` binary) if sextant dies without cleaning up. The
/// reaper starts with the first server.
pub fn enable(exe: PathBuf) {
    let _ = REAPER_EXE.set(exe);
}

/// Makes a server's process lead a session of its own and die with
/// sextant's runtime thread that started it (Linux).
pub fn own_session(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: setsid and prctl are async-signal-safe; the closure touches
    // nothing else.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Tells the reaper about a server's session (its pid), starting the
/// reaper if this is the first.
pub fn watch(session: u32) {
    tell(&format!("+{session}"));
}

/// Ends what is left of a server's session once the server has exited,
/// and tells the reaper to forget it (its id may be reused from now on).
pub fn end_session(session: u32) {
    kill_session(session);
    tell(&format!("-{session}"));
}

fn tell(line: &str) {
    let Some(exe) = REAPER_EXE.get() else {
        return;
    };
    let reaper = REAPER.get_or_init(|| start_reaper(exe).map(Mutex::new));
    if let Some(stdin) = reaper {
        let mut stdin = lock(stdin);
        if let Err(err) = writeln!(stdin, "{line}") {
            tracing::warn!(
                "the reaper process is gone ({err}); servers' processes may outlive a killed sextant"
            );
        }
    }
}

fn start_reaper(exe: &PathBuf) -> Option<ChildStdin> {
    use std::os::unix::process::CommandExt;
    let child = Command::new(exe)
        .arg(REAPER_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        // Its own process group: a terminal's Ctrl-C for sextant's group
        // must not end the reaper before it does its work.
        .process_group(0)
        .spawn();
    match child {
        Ok(mut child) => child.stdin.take(),
        Err(err) => {
            tracing::warn!(
                "cannot start the reaper process ({err}); servers' processes may outlive a killed sextant"
            );
            None
        }
    }
}

/// The reaper process: reads `+ID` and `-ID` lines until stdin closes,
/// which happens when sextant ends however it ends, then ends every
/// session still listed.
pub fn run_reaper() {
    let mut sessions = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (sign, id) = line.split_at(line.len().min(1));
        match (sign, id.parse::<u32>()) {
            ("+", Ok(id)) => sessions.push(id),
            ("-", Ok(id)) => sessions.retain(|&s| s != id),
            _ => {}
        }
    }
    for session in sessions {
        kill_session(session);
    }
}

/// Passes over the session's processes at most, 5 ms apart.
const KILL_PASSES: usize = 40;

/// SIGKILL to every live process of `session`, again while any is left: a
/// member may fork between a look at the processes and the kills (a shell
/// starting its next command), and the child would escape one pass. A
/// killed process is listed until it has died, so passes repeat, 5 ms
/// apart, 200 ms at most.
fn kill_session(session: u32) {
    for _ in 0..KILL_PASSES {
        let members = session_members(session);
        if members.is_empty() {
            return;
        }
        for pid in members {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Every live process whose session id is `session` (zombies, already
/// dead and waiting for their parent, left out).
fn session_members(session: u32) -> Vec<u32> {
    if session == 0 {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| live_session_of(&stat) == Some(session))
        })
        .collect()
}

/// The session id in a `/proc/PID/stat` line of a process that is not a
/// zombie: the state is the first field after the command name, which is
/// in parentheses and may hold anything, and the session the fourth.
fn live_session_of(stat: &str) -> Option<u32> {
    let (_, after_name) = stat.rsplit_once(')')?;
    let mut fields = after_name.split_whitespace();
    if fields.next()? == "Z" {
        return None;
    }
    fields.nth(2)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_is_read_past_a_command_name_with_spaces_and_parens() {
        let stat = "4242 (cargo (check) x) S 4200 4242 4100 0 -1 4194560";
        assert_eq!(live_session_of(stat), Some(4100));
        let zombie = "4243 (sleep) Z 1 4242 4100 0 -1 4194560";
        assert_eq!(live_session_of(zombie), None);
        assert_eq!(live_session_of("garbage"), None);
    }

    /// A session of a shell and the command it started in the background,
    /// as a server and its checker: both are found, and both end. The
    /// session is the test's own child's, never the test runner's, whose
    /// session leader may sit outside the process namespace (session 0).
    #[test]
    fn a_session_s_members_are_found_and_ended_grandchildren_included() {
        use std::os::unix::process::{CommandExt, ExitStatusExt};
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 60 & sleep 60"]);
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut shell = command.spawn().unwrap();
        let session = shell.id();
        let mut members = Vec::new();
        for _ in 0..200 {
            members = session_members(session);
            if members.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Two or three: a shell may run its last command in its own place.
        assert!(members.len() >= 2, "shell and sleeps: {members:?}");
        assert!(members.contains(&session));

        kill_session(session);
        assert_eq!(shell.wait().unwrap().signal(), Some(libc::SIGKILL));
        for _ in 0..200 {
            if session_members(session).is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(session_members(session), Vec::<u32>::new());
    }
}
