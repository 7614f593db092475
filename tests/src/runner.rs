//! Runs the suite: every test in its own child process (the same binary with `--one NAME`),
//! killed when its time limit passes. A deadlocked kernel cannot be cancelled inside a process
//! (its context stays busy), so the process is the unit the watchdog can stop: the hung test
//! fails with its name and the rest of the suite still runs. A test also fails when its process
//! prints its result but does not exit within [`EXIT_BOUND`] after it, or is ended by a signal:
//! a drop that blocks on a stuck GPU, or a crash in teardown, is a bug the user would meet.

use crate::{all_tests, Ctx, GpuTest, Outcome};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the runner was asked to do.
pub struct Options {
    /// The folder with the PTX files.
    pub ptx_dir: PathBuf,
    /// Only tests whose name contains this.
    pub filter: Option<String>,
    /// Also run hidden tests (names starting with `__`, used by the harness's own tests).
    pub include_hidden: bool,
    /// Multiplies every test's time limit.
    pub timeout_scale: f64,
}

/// The command line: `gpu-tests --ptx-dir DIR [--filter SUBSTR] [--timeout-scale F] [--list]
/// [--one NAME] [--include-hidden]`.
pub const USAGE: &str =
    "usage: gpu-tests --ptx-dir DIR [--filter SUBSTR] [--timeout-scale F] [--list] [--one NAME]
  --ptx-dir DIR        folder with ptx_sync_test_kernels.ptx (or env PTX_SYNC_PTX_DIR)
  --filter SUBSTR      only the tests whose name contains SUBSTR
  --timeout-scale F    multiply every test's time limit by F
  --list               print the selected tests' names and exit
  --one NAME           run test NAME in this process (what each child runs)
  --include-hidden     also select hidden tests (names starting with __)
env PTX_SYNC_MULTI_GPU_LOOPBACK=1 CUDA_MODULE_LOADING=EAGER: with one GPU, the multi_gpu_*
  cases run both halves on GPU 0 through two streams (host memory only) instead of skipping";

/// What the command line asks for.
pub struct Cli {
    /// Test selection and limits.
    pub opts: Options,
    /// `--list`: print the selected names only.
    pub list: bool,
    /// `--one NAME`: run that test in this process.
    pub one: Option<String>,
}

/// Parses the arguments after the program name; `env_ptx_dir` (from `PTX_SYNC_PTX_DIR`) is
/// the PTX folder unless `--ptx-dir` names one. `Err` holds the message for the user.
pub fn parse_args(
    args: impl IntoIterator<Item = String>,
    env_ptx_dir: Option<PathBuf>,
) -> Result<Cli, String> {
    let mut cli = Cli {
        opts: Options {
            ptx_dir: env_ptx_dir.unwrap_or_default(),
            filter: None,
            include_hidden: false,
            timeout_scale: 1.0,
        },
        list: false,
        one: None,
    };
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--ptx-dir" => cli.opts.ptx_dir = PathBuf::from(value()?),
            "--filter" => cli.opts.filter = Some(value()?),
            "--timeout-scale" => {
                let v = value()?;
                cli.opts.timeout_scale = match v.parse::<f64>() {
                    Ok(f) if f.is_finite() && f > 0.0 => f,
                    _ => {
                        return Err(format!(
                            "--timeout-scale needs a positive number, not `{v}`"
                        ))
                    }
                }
            }
            "--one" => cli.one = Some(value()?),
            "--include-hidden" => cli.opts.include_hidden = true,
            "--list" => cli.list = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if !cli.list && cli.opts.ptx_dir.as_os_str().is_empty() {
        return Err("no PTX directory: pass --ptx-dir DIR or set PTX_SYNC_PTX_DIR".into());
    }
    Ok(cli)
}

/// The tests selected by `opts`.
pub fn selected(opts: &Options) -> Vec<GpuTest> {
    all_tests()
        .into_iter()
        .filter(|t| opts.include_hidden || !t.name.starts_with("__"))
        .filter(|t| opts.filter.as_deref().is_none_or(|f| t.name.contains(f)))
        .collect()
}

/// Child side: runs one test in this process and prints `OK detail`, `SKIP reason` or
/// `ERR reason` as its last such line.
/// Exit status: 0 passed, 1 failed, 2 no driver.
pub fn run_one(ptx_dir: &Path, name: &str) -> i32 {
    let Some(test) = all_tests().into_iter().find(|t| t.name == name) else {
        println!("ERR no test named `{name}`");
        return 1;
    };
    // A PE that an NVSHMEM case's launcher started opens its own GPU (World), not GPU 0.
    if name.starts_with("nvshmem_") && crate::cases::nvshmem::is_pe() {
        let outcome = Outcome::from(crate::cases::nvshmem::run_pe(name, ptx_dir));
        println!("{}", child_line(&outcome));
        return match outcome {
            Outcome::Pass(_) | Outcome::Skip(_) => 0,
            Outcome::Fail(_) => 1,
        };
    }
    let ctx = match Ctx::new(ptx_dir.to_path_buf()) {
        Ok(ctx) => ctx,
        Err(e) => {
            let e = e.to_string();
            println!("ERR {e}");
            return if e.starts_with("no CUDA driver") {
                2
            } else {
                1
            };
        }
    };
    let outcome = Outcome::from((test.run)(&ctx));
    println!("{}", child_line(&outcome));
    match outcome {
        Outcome::Pass(_) | Outcome::Skip(_) => 0,
        Outcome::Fail(_) => 1,
    }
}

/// The line a child prints for `outcome` (the parent reads it back with [`parse_child_line`]).
pub fn child_line(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Pass(detail) => format!("OK {detail}"),
        Outcome::Skip(reason) => format!("SKIP {reason}"),
        Outcome::Fail(reason) => format!("ERR {reason}"),
    }
}

/// The outcome a child's line reports, if it is one ([`child_line`]).
fn parse_child_line(line: &str) -> Option<Outcome> {
    if let Some(detail) = line.strip_prefix("OK ") {
        Some(Outcome::Pass(detail.to_string()))
    } else if let Some(reason) = line.strip_prefix("SKIP ") {
        Some(Outcome::Skip(reason.to_string()))
    } else {
        line.strip_prefix("ERR ")
            .map(|reason| Outcome::Fail(reason.to_string()))
    }
}

/// How long a child may take to exit after printing its result. Everything a test made is
/// dropped between the two, so a drop that blocks on the GPU (a module unload or a free behind a
/// kernel that never ends) shows here, not as a hang of the next user of the process.
pub const EXIT_BOUND: Duration = Duration::from_secs(10);

/// How a child process ended: with an outcome and the time from its result line to its exit
/// (`None` where it printed none), or killed by the watchdog.
enum Child {
    Done {
        outcome: Outcome,
        exit: Option<Duration>,
    },
    Timeout,
}

impl Child {
    fn fail(why: String) -> Child {
        Child::Done {
            outcome: Outcome::Fail(why),
            exit: None,
        }
    }
}

fn run_child(exe: &Path, ptx_dir: &Path, test: &GpuTest, limit: Duration) -> Child {
    let mut cmd = Command::new(exe);
    cmd.arg("--ptx-dir").arg(ptx_dir).args(["--one", test.name]);
    watch_child(cmd, limit, EXIT_BOUND)
}

/// The lines a reader thread has read so far, each with when it arrived, and whether it hit
/// the end of the stream.
#[derive(Default)]
struct Lines {
    lines: Vec<(Instant, String)>,
    eof: bool,
}

/// Reads `from` line by line into a shared [`Lines`], timestamping each as it arrives.
fn read_lines(from: impl Read + Send + 'static) -> Arc<Mutex<Lines>> {
    let lines = Arc::new(Mutex::new(Lines::default()));
    let shared = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let mut l = shared.lock().unwrap_or_else(|p| p.into_inner());
            l.lines.push((Instant::now(), line));
        }
        shared.lock().unwrap_or_else(|p| p.into_inner()).eof = true;
    });
    lines
}

/// The lines read so far, waiting until `deadline` at most for the end of the stream (a
/// process the child started may still hold the pipe open, so the end may never come).
fn collected(lines: &Mutex<Lines>, deadline: Instant) -> Vec<(Instant, String)> {
    loop {
        let l = lines.lock().unwrap_or_else(|p| p.into_inner());
        if l.eof || Instant::now() >= deadline {
            return l.lines.clone();
        }
        drop(l);
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// When the last outcome line (`OK `, `ERR `, `SKIP `) read so far arrived.
fn result_time(lines: &Mutex<Lines>) -> Option<Instant> {
    let l = lines.lock().unwrap_or_else(|p| p.into_inner());
    l.lines
        .iter()
        .rev()
        .find(|(_, line)| parse_child_line(line).is_some())
        .map(|(t, _)| *t)
}

/// Runs `cmd` with its output read as it comes: killed (`Timeout`) when `limit` passes; failed
/// when it printed its result but did not exit within `exit_bound` after it (killed then), or
/// when a signal ended it. Otherwise the outcome its last result line gives, checked against
/// its exit status.
fn watch_child(cmd: Command, limit: Duration, exit_bound: Duration) -> Child {
    watch_child_output(cmd, limit, exit_bound).0
}

/// [`watch_child`], with every line the child printed to stdout (those after its result too).
fn watch_child_output(
    mut cmd: Command,
    limit: Duration,
    exit_bound: Duration,
) -> (Child, Vec<String>) {
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return (
                Child::fail(format!(
                    "could not start {}: {e}",
                    cmd.get_program().to_string_lossy()
                )),
                Vec::new(),
            )
        }
    };
    let start = Instant::now();
    // Both pipes are drained while the child runs: a child that fills one would block.
    let out = read_lines(child.stdout.take().expect("stdout is piped"));
    let err = read_lines(child.stderr.take().expect("stderr is piped"));
    let mut slow = None;
    let (status, exited) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (status, Instant::now()),
            Ok(None) => {
                if let Some(t) = result_time(&out) {
                    if t.elapsed() > exit_bound {
                        let _ = child.kill();
                        let _ = child.wait();
                        slow = Some(t.elapsed());
                        break (std::process::ExitStatus::default(), Instant::now());
                    }
                } else if start.elapsed() > limit {
                    let _ = child.kill();
                    let _ = child.wait();
                    let lines = collected(&out, Instant::now() + Duration::from_millis(500));
                    return (Child::Timeout, lines.into_iter().map(|(_, l)| l).collect());
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => {
                return (
                    Child::fail(format!("waiting for the test process: {e}")),
                    Vec::new(),
                )
            }
        }
    };
    let deadline = Instant::now() + Duration::from_millis(500);
    let out = collected(&out, deadline);
    let err = collected(&err, deadline);
    let last = out
        .iter()
        .rev()
        .find_map(|(t, line)| Some((*t, parse_child_line(line)?)));
    let exit = last
        .as_ref()
        .map(|(t, _)| exited.saturating_duration_since(*t));
    let reported = last.map(|(_, o)| o);
    let stderr_tail = || {
        let tail: Vec<&str> = err.iter().rev().take(8).map(|(_, l)| l.as_str()).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
    };
    let outcome = if let Some(took) = slow {
        Outcome::Fail(format!(
            "printed its result but took {:.2} s to exit (more than the {:.0} s allowed; killed){}",
            took.as_secs_f64(),
            exit_bound.as_secs_f64(),
            match reported {
                Some(Outcome::Fail(why)) => format!("; its result: ERR {why}"),
                _ => String::new(),
            }
        ))
    } else if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        Outcome::Fail(format!(
            "the test process was killed by signal {signal}: {}",
            stderr_tail()
        ))
    } else if let Some(took) = exit.filter(|took| *took > exit_bound) {
        Outcome::Fail(format!(
            "printed its result but took {:.2} s to exit (more than the {:.0} s allowed)",
            took.as_secs_f64(),
            exit_bound.as_secs_f64()
        ))
    } else {
        match (status.code(), reported) {
            (Some(0), Some(o @ (Outcome::Pass(_) | Outcome::Skip(_)))) => o,
            (_, Some(o @ Outcome::Fail(_))) => o,
            (code, _) => Outcome::Fail(format!(
                "test process exited with {code:?}: {}",
                stderr_tail()
            )),
        }
    };
    let lines = out.into_iter().map(|(_, l)| l).collect();
    (Child::Done { outcome, exit }, lines)
}

/// What a test run in a child process ([`run_in_child`]) gave.
pub struct ChildReport {
    /// Its outcome as the runner judges it (a timeout is a failure saying so).
    pub outcome: Outcome,
    /// From its result line to its exit.
    pub exit: Option<Duration>,
    /// Every line it printed to stdout, the device's `printf` output included (the driver
    /// writes it at synchronization, or at exit).
    pub stdout: Vec<String>,
}

/// Runs test `name` (hidden or not) in a child process of this binary (`--one NAME`) with
/// `env` added to its environment, judged as the runner judges every test: killed after
/// `limit`, failed when it exits more than [`EXIT_BOUND`] after its result or by a signal.
/// What must hold before CUDA starts in a process (`CUDA_MODULE_LOADING`) can only be set so.
pub fn run_in_child(
    ptx_dir: &Path,
    name: &str,
    env: &[(&str, &str)],
    limit: Duration,
) -> crate::Result<ChildReport> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("--ptx-dir").arg(ptx_dir).args(["--one", name]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (child, stdout) = watch_child_output(cmd, limit, EXIT_BOUND);
    let (outcome, exit) = match child {
        Child::Done { outcome, exit } => (outcome, exit),
        Child::Timeout => (
            Outcome::Fail(format!(
                "`{name}` did not finish within {:.1} s (killed)",
                limit.as_secs_f64()
            )),
            None,
        ),
    };
    Ok(ChildReport {
        outcome,
        exit,
        stdout,
    })
}

/// Runs the hidden test `name` (one that never finishes) in a child runner with a limit of
/// 1/15 of its own (2 s of 30 s): the watchdog must kill it and the child must report
/// `TIMEOUT name` and `0 passed, 1 failed`, within 20 s. `Ok` holds how long that took.
pub fn hidden_test_times_out(ptx_dir: &Path, name: &str) -> crate::Result<Duration> {
    let exe = std::env::current_exe()?;
    let start = Instant::now();
    let out = Command::new(exe)
        .arg("--ptx-dir")
        .arg(ptx_dir)
        .args([
            "--filter",
            name,
            "--include-hidden",
            "--timeout-scale",
            "0.0667",
        ])
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let took = start.elapsed();
    if out.status.code() != Some(1)
        || !text.contains(&format!("TIMEOUT {name}"))
        || !text.contains("0 passed, 1 failed")
    {
        return Err(format!("child runner exit {:?}, output:\n{text}", out.status.code()).into());
    }
    if took > Duration::from_secs(20) {
        return Err(format!("the watchdog took {took:?}").into());
    }
    Ok(took)
}

/// "0.03s": how long a child took to exit after its result ("?" without one).
fn exit_time(exit: Option<Duration>) -> String {
    exit.map_or("?".into(), |d| format!("{:.2}s", d.as_secs_f64()))
}

/// Parent side: runs the selected tests, prints one line each and the summary
/// `N passed, N failed` (`, N skipped` if any). Exit status: 0 no failure and at least one
/// pass, 1 failures (or nothing ran), 2 no driver.
pub fn run_all(opts: &Options) -> i32 {
    if !opts.ptx_dir.is_dir() {
        println!(
            "error: the PTX directory {} does not exist (build the PTX with `cargo xtask build-ptx` or stage the suite with `cargo xtask stage`)",
            opts.ptx_dir.display()
        );
        return 1;
    }
    if !opts.ptx_dir.join(crate::KERNELS_PTX).is_file() {
        println!(
            "error: {} not found in the PTX directory {} (build it with `cargo xtask build-ptx` or stage with `cargo xtask stage`)",
            crate::KERNELS_PTX,
            opts.ptx_dir.display()
        );
        return 1;
    }
    if let Err(ptx_sync_host::Error::NoDriver(why)) = ptx_sync_host::driver_available() {
        println!("no CUDA driver found: {why}");
        return 2;
    }
    match ptx_sync_host::Device::open(0) {
        Ok(gpu) => {
            let (major, minor) = gpu.compute_capability();
            println!(
                "device: {} ({} SMs, sm_{major}{minor})",
                gpu.name(),
                gpu.sm_count()
            );
        }
        Err(e) => {
            println!("no CUDA driver found: {e}");
            return 2;
        }
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            println!("error: cannot find this runner's own path: {e}");
            return 1;
        }
    };
    let tests = selected(opts);
    if tests.is_empty() {
        println!(
            "error: no test matches the filter `{}` (see --list)",
            opts.filter.as_deref().unwrap_or("")
        );
    }
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for test in &tests {
        let limit = test.timeout.mul_f64(opts.timeout_scale);
        let start = Instant::now();
        match run_child(&exe, &opts.ptx_dir, test, limit) {
            Child::Done {
                outcome: Outcome::Pass(detail),
                exit,
            } => {
                passed += 1;
                println!(
                    "PASS {} ({detail}, {:.2}s, exit {})",
                    test.name,
                    start.elapsed().as_secs_f64(),
                    exit_time(exit)
                );
            }
            Child::Done {
                outcome: Outcome::Skip(reason),
                ..
            } => {
                skipped += 1;
                println!("SKIP {}: {reason}", test.name);
            }
            Child::Done {
                outcome: Outcome::Fail(reason),
                exit,
            } => {
                failed += 1;
                println!("FAIL {}: {reason} (exit {})", test.name, exit_time(exit));
            }
            Child::Timeout => {
                failed += 1;
                println!(
                    "TIMEOUT {} after {:.1}s (killed by the watchdog)",
                    test.name,
                    limit.as_secs_f64()
                );
            }
        }
    }
    print!("{passed} passed, {failed} failed");
    if skipped > 0 {
        print!(", {skipped} skipped");
    }
    println!();
    if failed == 0 && passed > 0 {
        0
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_every_option() {
        let cli = parse_args(
            args(&[
                "--ptx-dir",
                "p",
                "--filter",
                "atom",
                "--timeout-scale",
                "2.5",
                "--list",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(cli.opts.ptx_dir, PathBuf::from("p"));
        assert_eq!(cli.opts.filter.as_deref(), Some("atom"));
        assert_eq!(cli.opts.timeout_scale, 2.5);
        assert!(cli.list && cli.one.is_none() && !cli.opts.include_hidden);
        let cli = parse_args(
            args(&["--one", "__hang", "--include-hidden"]),
            Some("e".into()),
        )
        .unwrap();
        assert_eq!(cli.one.as_deref(), Some("__hang"));
        assert_eq!(
            cli.opts.ptx_dir,
            PathBuf::from("e"),
            "PTX_SYNC_PTX_DIR is used"
        );
        assert!(cli.opts.include_hidden);
    }

    #[test]
    fn flag_beats_environment() {
        let cli = parse_args(args(&["--ptx-dir", "flag"]), Some("env".into())).unwrap();
        assert_eq!(cli.opts.ptx_dir, PathBuf::from("flag"));
    }

    #[test]
    fn bad_command_lines_say_why() {
        let err = |a: &[&str]| parse_args(args(a), None).err().unwrap();
        assert!(err(&[]).contains("no PTX directory"));
        assert!(err(&["--ptx-dir"]).contains("--ptx-dir needs a value"));
        assert!(err(&["--ptx-dir", "p", "--bogus"]).contains("unknown option `--bogus`"));
        assert!(err(&["--ptx-dir", "p", "--timeout-scale", "0"]).contains("positive number"));
        assert!(err(&["--ptx-dir", "p", "--timeout-scale", "x"]).contains("positive number"));
        // --list needs no PTX.
        assert!(parse_args(args(&["--list"]), None).is_ok());
    }

    #[test]
    fn hidden_tests_only_on_request() {
        let cli = parse_args(args(&["--list"]), None).unwrap();
        let names: Vec<_> = selected(&cli.opts).iter().map(|t| t.name).collect();
        assert!(names.contains(&"harness_smoke_iota"));
        assert!(!names.iter().any(|n| n.starts_with("__")));
        let cli = parse_args(
            args(&["--list", "--include-hidden", "--filter", "__hang"]),
            None,
        )
        .unwrap();
        let names: Vec<_> = selected(&cli.opts).iter().map(|t| t.name).collect();
        assert_eq!(names, ["__hang"]);
    }

    #[test]
    fn test_names_are_unique() {
        let mut names: Vec<_> = all_tests().iter().map(|t| t.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate test names");
    }

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    /// A child that prints its result and exits at once passes with its detail and an exit
    /// time near zero; one that lingers past the bound after its result fails as slow (and is
    /// killed at the bound, not at the test's limit), even with a passing result.
    #[test]
    fn a_child_must_exit_promptly_after_its_result() {
        let bound = Duration::from_secs(1);
        match watch_child(sh("echo OK x"), Duration::from_secs(30), bound) {
            Child::Done {
                outcome: Outcome::Pass(detail),
                exit: Some(exit),
            } => {
                assert_eq!(detail, "x");
                assert!(exit < bound, "{exit:?}");
            }
            _ => panic!("a prompt child did not pass"),
        }
        let start = Instant::now();
        match watch_child(sh("echo OK x; sleep 3"), Duration::from_secs(30), bound) {
            Child::Done {
                outcome: Outcome::Fail(why),
                exit: Some(exit),
            } => {
                assert!(
                    why.starts_with("printed its result but took ") && why.contains("s to exit"),
                    "{why}"
                );
                assert!(exit >= bound, "{exit:?}");
            }
            _ => panic!("a child that lingered after its result did not fail"),
        }
        assert!(
            start.elapsed() < Duration::from_millis(2900),
            "not killed at the bound"
        );
    }

    /// A failing result is kept; a signal fails the test even after a passing result; output
    /// without a result line is a failure with the exit code; no result within the limit is a
    /// timeout.
    #[test]
    fn signals_missing_results_and_limits() {
        let run = |script: &str| watch_child(sh(script), Duration::from_secs(2), EXIT_BOUND);
        match run("echo ERR broken; exit 1") {
            Child::Done {
                outcome: Outcome::Fail(why),
                exit: Some(_),
            } => assert_eq!(why, "broken"),
            _ => panic!("ERR was not a failure"),
        }
        match run("echo OK x; kill -9 $$") {
            Child::Done {
                outcome: Outcome::Fail(why),
                ..
            } => assert!(
                why.starts_with("the test process was killed by signal 9"),
                "{why}"
            ),
            _ => panic!("a child killed by a signal passed"),
        }
        match run("echo device: H100; echo oops >&2; exit 3") {
            Child::Done {
                outcome: Outcome::Fail(why),
                exit: None,
            } => assert_eq!(why, "test process exited with Some(3): oops"),
            _ => panic!("a child without a result passed"),
        }
        match run("echo SKIP needs sm_90") {
            Child::Done {
                outcome: Outcome::Skip(why),
                exit: Some(_),
            } => assert_eq!(why, "needs sm_90"),
            _ => panic!("SKIP was not a skip"),
        }
        assert!(matches!(run("sleep 5"), Child::Timeout));
    }

    #[test]
    fn child_lines_round_trip() {
        for o in [
            Outcome::Pass("3 words".into()),
            Outcome::Skip("needs sm_90".into()),
            Outcome::Fail("out[3] = 0x0".into()),
        ] {
            assert_eq!(parse_child_line(&child_line(&o)), Some(o));
        }
        assert_eq!(parse_child_line("device: H100"), None);
        assert_eq!(
            Outcome::from(crate::skip::<String>("needs sm_90")),
            Outcome::Skip("needs sm_90".into())
        );
    }
}
