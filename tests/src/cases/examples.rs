//! The examples/ project (a crate outside the workspace that uses ptx-sync as a user's would:
//! its kernels built by ptx-sync-build from its build.rs, loaded through ptx-sync-host) runs and
//! passes every example. `cargo xtask stage` builds it for the stage's arch and copies its
//! binary, `examples-app`, next to this runner; this test runs it from there.

use crate::{Ctx, GpuTest};
use ptx_sync_testkit::Result;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The staged binary's name.
const APP: &str = "examples-app";

/// The examples, in the order the app runs them: the `NAME`s of
/// examples/app/examples/01-*.rs to 05-*.rs.
const EXAMPLES: [&str; 5] = [
    "first_kernel",
    "producer_consumer",
    "hash_table",
    "grid_reduction",
    "host_tested_kernels",
];

/// The app's own watchdog is 20 s per launch; it is killed after this.
const APP_LIMIT: Duration = Duration::from_secs(100);

/// The runner's limit for this test (above `APP_LIMIT`, so the test reports the app's output).
const TIMEOUT: Duration = Duration::from_secs(120);

/// Where the app is: `$PTX_SYNC_EXAMPLES_APP` (set by `cargo test`'s tests/tests/gpu_suite.rs,
/// which builds it in examples/target), else next to this runner (a staged folder).
fn app_path() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("PTX_SYNC_EXAMPLES_APP") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the runner's path: {e}"))?;
    let dir = exe
        .parent()
        .ok_or_else(|| format!("{} has no parent directory", exe.display()))?;
    Ok(dir.join(APP))
}

/// The `example ...` lines of `stdout` are exactly one `example <name>: ok (...)` per
/// example, in order.
fn check_lines(stdout: &str) -> Result<Vec<&str>> {
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("example "))
        .collect();
    let expected: Vec<String> = EXAMPLES
        .iter()
        .map(|n| format!("example {n}: ok ("))
        .collect();
    let fits = lines.len() == EXAMPLES.len()
        && lines
            .iter()
            .zip(&expected)
            .all(|(l, want)| l.starts_with(want.as_str()) && l.ends_with(')'));
    if fits {
        Ok(lines)
    } else {
        Err(format!(
            "expected exactly the lines `{}...)`, got: {}",
            expected.join("...)`, `"),
            lines.join(" | ")
        )
        .into())
    }
}

fn run(_ctx: &Ctx) -> Result<String> {
    let app = app_path()?;
    if !app.is_file() {
        return Err(format!(
            "{} not found: stage the suite with `cargo xtask stage` (it builds examples/ and \
             puts {APP} next to the runner)",
            app.display()
        )
        .into());
    }
    let mut child = Command::new(&app)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", app.display()))?;
    // Read both pipes while waiting, so a full pipe never stalls the app.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > APP_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {APP}: {e}").into()),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let output = || {
        let all: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
        all[all.len().saturating_sub(12)..].join(" | ")
    };
    let Some(status) = status else {
        return Err(format!(
            "{APP} did not finish within {APP_LIMIT:?} (killed): {}",
            output()
        )
        .into());
    };
    if status.code() != Some(0) {
        return Err(format!("{APP} exited with {status}: {}", output()).into());
    }
    let lines = check_lines(&stdout)?;
    Ok(format!("{APP}: {}", lines.join("; ")))
}

pub fn tests() -> Vec<GpuTest> {
    vec![GpuTest {
        name: "examples_app",
        timeout: TIMEOUT,
        run,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_five_ok_lines_pass() {
        let good = "examples: NVIDIA H100 (sm_90, 132 SMs)\n\
                    example first_kernel: ok (a)\n\
                    example producer_consumer: ok (b)\n\
                    example hash_table: ok (c)\n\
                    example grid_reduction: ok (d)\n\
                    example host_tested_kernels: ok (e)\n";
        assert_eq!(check_lines(good).unwrap().len(), 5);
        let failed = good.replace("hash_table: ok (c)", "hash_table: FAILED: lost a count");
        assert!(check_lines(&failed).is_err());
        let missing = good.replace("example host_tested_kernels: ok (e)\n", "");
        assert!(check_lines(&missing).is_err());
        let extra = format!("{good}example host_tested_kernels: ok (e)\n");
        assert!(check_lines(&extra).is_err());
    }
}
