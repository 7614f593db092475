//! Starting the PEs of one node: one process per PE, each with our rank variables and a fresh
//! rendezvous directory, waited for together; when one fails the others get a grace period,
//! then are killed (a PE waiting for a dead one would wait until its own timeout).

use super::world::World;
use crate::{Device, Error, Result};
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// How long the other PEs may go on after one fails, unless [`LocalLauncher::grace`] says.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// The variables the launcher sets for NVSHMEM on one node unless they are set already (in this
/// process's environment or by [`LocalLauncher::env`]): the unique-ID bootstrap on the loopback
/// interface, no remote transport (the PEs share a node: peer-to-peer only), and no NVLink
/// multicast objects.
pub const ONE_NODE_DEFAULTS: &[(&str, &str)] = &[
    ("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "lo"),
    ("NVSHMEM_REMOTE_TRANSPORT", "none"),
    ("NVSHMEM_DISABLE_NVLS", "1"),
];

/// How one PE's process ended.
#[derive(Debug)]
pub struct PeOutcome {
    /// The PE.
    pub pe: u32,
    /// Its exit status.
    pub status: ExitStatus,
    /// What it wrote to stdout (lossy UTF-8), where output is captured; else empty.
    pub stdout: String,
    /// What it wrote to stderr, where output is captured; else empty.
    pub stderr: String,
    /// Whether the launcher killed it (after another PE failed, or at the launcher's limit).
    pub killed: bool,
    /// How long after the start it ended.
    pub ended_after: Duration,
}

impl PeOutcome {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// "exit status 3", "killed by signal 9", with "(by the launcher)" where it was.
    pub fn describe(&self) -> String {
        use std::os::unix::process::ExitStatusExt;
        let how = match (self.status.code(), self.status.signal()) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => format!("{}", self.status),
        };
        if self.killed {
            format!("{how} (by the launcher, after another PE failed or at its limit)")
        } else {
            how
        }
    }
}

/// `Ok` where every PE succeeded; else [`Error::PeFailed`] for the PE that failed first on its
/// own (not one the launcher killed after it), or, where the launcher killed them all (its
/// limit), the first.
pub fn check_outcomes(outcomes: &[PeOutcome]) -> Result<()> {
    let failed = outcomes
        .iter()
        .filter(|o| !o.success() && !o.killed)
        .min_by_key(|o| (o.ended_after, o.pe))
        .or_else(|| outcomes.iter().find(|o| !o.success()));
    match failed {
        None => Ok(()),
        Some(o) => Err(Error::PeFailed {
            pe: o.pe,
            status: o.describe(),
        }),
    }
}

/// Starts `n_pes` copies of a program on this node, one per PE, and waits for them
/// ([`run`](Self::run)). Each gets `PTX_SYNC_PE`, `PTX_SYNC_N_PES`, `PTX_SYNC_LOCAL_PE` (its
/// GPU), `PTX_SYNC_NVSHMEM_RENDEZVOUS` (a fresh directory, removed after), the
/// [`ONE_NODE_DEFAULTS`] unless set, and the variables given with [`env`](Self::env).
///
/// ```no_run
/// use ptx_sync_host::nvshmem::{check_outcomes, LocalLauncher};
/// # fn main() -> Result<(), ptx_sync_host::Error> {
/// let outcomes = LocalLauncher::new("target/release/my_nvshmem_program")
///     .args(["--rounds", "1000"])
///     .n_pes(2)
///     .env("NVSHMEM_SYMMETRIC_SIZE", "268435456")
///     .capture_output(true)
///     .run()?;
/// for o in &outcomes {
///     println!("PE {}: {}\n{}", o.pe, o.describe(), o.stdout);
/// }
/// check_outcomes(&outcomes)?; // Error::PeFailed naming the PE that failed first
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct LocalLauncher {
    program: OsString,
    args: Vec<OsString>,
    n_pes: u32,
    env: Vec<(OsString, OsString)>,
    capture: bool,
    grace: Duration,
    limit: Option<Duration>,
}

impl LocalLauncher {
    /// A launcher of `program` (a path, or a name looked up in `PATH`) with no arguments, for 1
    /// PE, output not captured (it goes to this process's), a [`DEFAULT_GRACE`], no limit.
    pub fn new(program: impl AsRef<OsStr>) -> LocalLauncher {
        LocalLauncher {
            program: program.as_ref().to_os_string(),
            args: Vec::new(),
            n_pes: 1,
            env: Vec::new(),
            capture: false,
            grace: DEFAULT_GRACE,
            limit: None,
        }
    }

    /// Adds arguments, the same for every PE.
    pub fn args<I, S>(mut self, args: I) -> LocalLauncher
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// How many PEs (processes) to start.
    pub fn n_pes(mut self, n: u32) -> LocalLauncher {
        self.n_pes = n;
        self
    }

    /// Sets a variable for every PE (over this process's environment and the
    /// [`ONE_NODE_DEFAULTS`]; the rank variables are the launcher's).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> LocalLauncher {
        self.env
            .push((key.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// Whether to keep each PE's stdout and stderr in its [`PeOutcome`] (else they go to this
    /// process's).
    pub fn capture_output(mut self, capture: bool) -> LocalLauncher {
        self.capture = capture;
        self
    }

    /// How long the other PEs may go on after one fails before they are killed.
    pub fn grace(mut self, grace: Duration) -> LocalLauncher {
        self.grace = grace;
        self
    }

    /// The longest the PEs may run; past it every PE still running is killed.
    pub fn limit(mut self, limit: Duration) -> LocalLauncher {
        self.limit = Some(limit);
        self
    }

    fn command(&self, pe: u32, dir: &std::path::Path) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args).stdin(Stdio::null());
        for (k, v) in ONE_NODE_DEFAULTS {
            let given = self.env.iter().any(|(key, _)| key == OsStr::new(k));
            if std::env::var_os(k).is_none() && !given {
                cmd.env(k, v);
            }
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.env("PTX_SYNC_PE", pe.to_string())
            .env("PTX_SYNC_N_PES", self.n_pes.to_string())
            .env("PTX_SYNC_LOCAL_PE", pe.to_string())
            .env("PTX_SYNC_NVSHMEM_RENDEZVOUS", dir);
        if self.capture {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        cmd
    }

    /// Starts every PE and waits for all of them; when one fails (exits non-zero or by a
    /// signal), the others still running get the grace period, then are killed. `Ok` with
    /// every PE's outcome, in PE order, whatever they were ([`check_outcomes`] turns a failure
    /// into [`Error::PeFailed`]); `Err` only where the PEs could not be started (the program
    /// not found, say: the PEs started are killed) or `n_pes` is 0.
    pub fn run(self) -> Result<Vec<PeOutcome>> {
        if self.n_pes == 0 {
            return Err(Error::Empty("number of PEs"));
        }
        let dir = fresh_dir().map_err(|e| Error::NvshmemBootstrap {
            what: "creating a rendezvous directory".into(),
            detail: e.to_string(),
        })?;
        let result = self.run_in(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        result
    }

    fn run_in(&self, dir: &std::path::Path) -> Result<Vec<PeOutcome>> {
        let start = Instant::now();
        let mut running: Vec<Running> = Vec::with_capacity(self.n_pes as usize);
        for pe in 0..self.n_pes {
            match self.command(pe, dir).spawn() {
                Ok(mut child) => {
                    let out = child.stdout.take().map(reader);
                    let err = child.stderr.take().map(reader);
                    running.push(Running {
                        pe,
                        child,
                        out,
                        err,
                        ended: None,
                        killed: false,
                    });
                }
                Err(e) => {
                    for r in &mut running {
                        let _ = r.child.kill();
                        let _ = r.child.wait();
                    }
                    return Err(Error::NvshmemBootstrap {
                        what: format!(
                            "starting PE {pe} ({})",
                            PathBuf::from(&self.program).display()
                        ),
                        detail: e.to_string(),
                    });
                }
            }
        }
        let mut first_failure: Option<Instant> = None;
        loop {
            let mut all_done = true;
            for r in &mut running {
                if r.ended.is_some() {
                    continue;
                }
                match r.child.try_wait() {
                    Ok(Some(status)) => {
                        if !status.success() && first_failure.is_none() {
                            first_failure = Some(Instant::now());
                        }
                        r.ended = Some((status, start.elapsed()));
                    }
                    Ok(None) => all_done = false,
                    Err(_) => all_done = false,
                }
            }
            if all_done {
                break;
            }
            let grace_over = first_failure.is_some_and(|t| t.elapsed() >= self.grace);
            let limit_over = self.limit.is_some_and(|l| start.elapsed() >= l);
            if grace_over || limit_over {
                for r in running.iter_mut().filter(|r| r.ended.is_none()) {
                    let _ = r.child.kill();
                    r.killed = true;
                    if let Ok(status) = r.child.wait() {
                        r.ended = Some((status, start.elapsed()));
                    }
                }
                if first_failure.is_none() {
                    first_failure = Some(Instant::now());
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(running
            .into_iter()
            .filter_map(|r| {
                let (status, ended_after) = r.ended?;
                Some(PeOutcome {
                    pe: r.pe,
                    status,
                    stdout: r.out.map(collect).unwrap_or_default(),
                    stderr: r.err.map(collect).unwrap_or_default(),
                    killed: r.killed,
                    ended_after,
                })
            })
            .collect())
    }
}

struct Running {
    pe: u32,
    child: Child,
    out: Option<std::thread::JoinHandle<Vec<u8>>>,
    err: Option<std::thread::JoinHandle<Vec<u8>>>,
    ended: Option<(ExitStatus, Duration)>,
    killed: bool,
}

/// Reads a pipe to its end on a thread of its own (a PE blocked on a full pipe would never end).
fn reader(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = pipe.read_to_end(&mut out);
        out
    })
}

fn collect(h: std::thread::JoinHandle<Vec<u8>>) -> String {
    String::from_utf8_lossy(&h.join().unwrap_or_default()).into_owned()
}

/// A new, empty directory under the temporary directory.
fn fresh_dir() -> std::io::Result<PathBuf> {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "ptx-sync-nvshmem-{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Relaxed)
    ));
    std::fs::create_dir(&dir)?;
    Ok(dir)
}

/// Runs `body` on every PE of one node. Where the environment names a rank (this process is
/// a PE: started by [`LocalLauncher`], torchrun, mpirun, srun), it sets up the [`World`]
/// ([`World::from_env`]), runs `body`, and finalizes. Else it starts this program again
/// (`current_exe()`, the same arguments) once per PE ([`LocalLauncher`]: `n_pes`, or one per
/// GPU), with its output going to this process's, and waits for all of them: `Ok` where every
/// PE succeeded, else [`Error::PeFailed`] for the PE that failed first.
///
/// In a PE whose world was left unusable (a PE exited during a collective call, a call never
/// returned), it prints the error to stderr and ends the process with status 1 at once
/// ([`exit_now`](super::exit_now)) instead of returning: a normal exit can hang there.
///
/// The launching process sets no limit of its own: each PE's waits are bounded
/// ([`Config::timeout`](super::Config::timeout), `PTX_SYNC_NVSHMEM_TIMEOUT`). It returns in every
/// process, so call it last in `main` (or return what it returns):
///
/// ```no_run
/// fn main() -> Result<(), ptx_sync_host::Error> {
///     ptx_sync_host::nvshmem::run_local(Some(2), |world| {
///         let flags = world.alloc::<u64>(64)?;
///         println!("PE {} of {}: {:#x}", world.my_pe(), world.n_pes(), flags.device_ptr());
///         world.barrier_all()
///     })
/// }
/// ```
pub fn run_local(n_pes: Option<u32>, body: impl FnOnce(&World) -> Result<()>) -> Result<()> {
    if let Some(rank) = super::Rank::from_env()? {
        let result = World::from_env().and_then(|world| {
            let result = body(&world);
            let finalized = world.finalize();
            result.and(finalized)
        });
        if super::left_unusable() {
            // A normal exit can hang on what NVSHMEM left behind: say why, and leave at once.
            if let Err(e) = &result {
                eprintln!("PE {}: {e}", rank.pe);
            }
            super::exit_now(1);
        }
        return result;
    }
    let count = Device::count()?;
    let n = match n_pes {
        Some(0) => return Err(Error::Empty("number of PEs")),
        Some(n) => n as usize,
        None => count.max(1),
    };
    if n > count {
        return Err(Error::TooFewGpus { needed: n, count });
    }
    let program = std::env::current_exe().map_err(|e| Error::NvshmemBootstrap {
        what: "finding this program to start it once per PE".into(),
        detail: e.to_string(),
    })?;
    let outcomes = LocalLauncher::new(program)
        .args(std::env::args_os().skip(1))
        .n_pes(n as u32)
        .run()?;
    check_outcomes(&outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> LocalLauncher {
        LocalLauncher::new("sh").args(["-c", script, "sh"])
    }

    /// Every PE gets its own rank variables, the shared ones, the one-node defaults and the
    /// arguments: 3 PEs, 9 values each.
    #[test]
    fn each_pe_gets_its_variables_and_arguments() {
        let outcomes = sh("echo \"$PTX_SYNC_PE $PTX_SYNC_N_PES $PTX_SYNC_LOCAL_PE|$PTX_SYNC_NVSHMEM_RENDEZVOUS|$MY_VAR|$NVSHMEM_REMOTE_TRANSPORT $NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME $NVSHMEM_DISABLE_NVLS|$*\"; echo to-stderr >&2")
            .args(["a b", "c"])
            .n_pes(3)
            .env("MY_VAR", "shared value")
            .env("NVSHMEM_REMOTE_TRANSPORT", "ibrc")
            .capture_output(true)
            .run()
            .unwrap();
        assert_eq!(outcomes.len(), 3);
        let mut dirs = Vec::new();
        let mut checked = 0;
        for (i, o) in outcomes.iter().enumerate() {
            assert_eq!(o.pe, i as u32);
            assert!(o.success() && !o.killed, "{o:?}");
            assert_eq!(o.stderr, "to-stderr\n");
            let line = o.stdout.trim_end();
            let fields: Vec<&str> = line.split('|').collect();
            assert_eq!(fields.len(), 5, "{line}");
            assert_eq!(fields[0], format!("{i} 3 {i}"));
            assert_eq!(fields[2], "shared value");
            // Given by env() over the default; the others are the defaults (unless this test's
            // own environment sets them).
            let ifname = std::env::var("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME").unwrap_or("lo".into());
            let nvls = std::env::var("NVSHMEM_DISABLE_NVLS").unwrap_or("1".into());
            assert_eq!(fields[3], format!("ibrc {ifname} {nvls}"));
            assert_eq!(fields[4], "a b c");
            dirs.push(fields[1].to_string());
            checked += 5;
        }
        assert_eq!(checked, 15);
        assert!(dirs
            .iter()
            .all(|d| *d == dirs[0] && d.contains("ptx-sync-nvshmem-")));
        // The fresh directory is removed after the run.
        assert!(!std::path::Path::new(&dirs[0]).exists());
    }

    /// One PE of three exits 3 at once; the other two run on, get a grace of 300 ms, and are
    /// killed: the result names PE 1 and its status.
    #[test]
    fn one_pe_fails_and_the_others_are_killed_after_the_grace() {
        let start = Instant::now();
        let outcomes = sh("if [ \"$PTX_SYNC_PE\" = 1 ]; then echo bad >&2; exit 3; fi; echo started; exec sleep 30")
            .n_pes(3)
            .grace(Duration::from_millis(300))
            .capture_output(true)
            .run()
            .unwrap();
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_secs(10),
            "{took:?}"
        );
        assert_eq!(outcomes.len(), 3);
        assert_eq!(outcomes.iter().filter(|o| o.killed).count(), 2);
        assert_eq!(outcomes.iter().filter(|o| o.success()).count(), 0);
        let one = &outcomes[1];
        assert_eq!(
            (one.status.code(), one.killed, one.stderr.as_str()),
            (Some(3), false, "bad\n")
        );
        for o in [&outcomes[0], &outcomes[2]] {
            assert!(o.killed && o.status.code().is_none(), "{o:?}");
            assert_eq!(
                o.describe(),
                "killed by signal 9 (by the launcher, after another PE failed or at its limit)"
            );
            assert_eq!(o.stdout, "started\n");
        }
        match check_outcomes(&outcomes) {
            Err(e @ Error::PeFailed { pe: 1, .. }) => {
                assert_eq!(e.to_string(), "PE 1 failed: exit status 3")
            }
            other => panic!("{other:?}"),
        }
    }

    /// Every PE succeeding is `Ok`; the limit kills PEs that run too long; a program that
    /// does not exist and zero PEs are errors.
    #[test]
    fn success_limit_and_bad_programs() {
        let outcomes = sh("exit 0").n_pes(2).run().unwrap();
        assert_eq!(outcomes.iter().filter(|o| o.success()).count(), 2);
        assert!(check_outcomes(&outcomes).is_ok());

        let start = Instant::now();
        let outcomes = sh("exec sleep 30")
            .n_pes(2)
            .limit(Duration::from_millis(200))
            .run()
            .unwrap();
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_eq!(outcomes.iter().filter(|o| o.killed).count(), 2);
        assert!(matches!(
            check_outcomes(&outcomes),
            Err(Error::PeFailed { pe: 0, .. })
        ));

        match LocalLauncher::new("/nonexistent/ptx-sync-pe")
            .n_pes(2)
            .run()
        {
            Err(Error::NvshmemBootstrap { what, .. }) => {
                assert_eq!(what, "starting PE 0 (/nonexistent/ptx-sync-pe)")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            sh("exit 0").n_pes(0).run(),
            Err(Error::Empty("number of PEs"))
        ));
    }
}
