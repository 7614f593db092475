//! The local launcher with this test binary itself as the PEs' program: the rank variables reach
//! `run_local`'s PE side, a PE that fails is named, the others are killed after the grace, and a
//! PE that cannot set up its world (no NVSHMEM or no GPU here) says why. Needs no GPU.
#![cfg(feature = "nvshmem")]

use ptx_sync_host::nvshmem::{check_outcomes, run_local, LocalLauncher, Rank};
use ptx_sync_host::Error;
use std::time::{Duration, Instant};

/// Which fake PE [`fake_pe`] plays, in the processes the tests below start.
const CASE: &str = "PTX_SYNC_TEST_FAKE_PE";

/// Not a test of its own: the body of the PEs the other tests start (it returns at once
/// elsewhere).
#[test]
fn fake_pe() {
    let Ok(case) = std::env::var(CASE) else {
        return;
    };
    let rank = Rank::from_env().expect("rank variables").expect("a rank");
    // libtest has printed "test fake_pe ... " without a newline: start the reports on a line
    // of their own.
    println!();
    match case.as_str() {
        "report" => println!(
            "rank {} {} {} {}",
            rank.pe, rank.n_pes, rank.local_pe, rank.launcher
        ),
        "pe1-fails" => {
            if rank.pe == 1 {
                eprintln!("PE 1 gives up");
                std::process::exit(3);
            }
            println!("PE {} waits", rank.pe);
            std::thread::sleep(Duration::from_secs(60));
        }
        "world" => {
            let result = run_local(None, |_| Ok(()));
            match result {
                Ok(()) => println!("PE {}: Ok", rank.pe),
                Err(e) => {
                    println!("PE {}: {e}", rank.pe);
                    std::process::exit(1);
                }
            }
        }
        other => panic!("unknown case {other}"),
    }
}

fn launcher(case: &str, n: u32) -> LocalLauncher {
    LocalLauncher::new(std::env::current_exe().unwrap())
        .args(["fake_pe", "--exact", "--nocapture", "--test-threads=1"])
        .n_pes(n)
        .env(CASE, case)
        .capture_output(true)
}

/// Four PEs, each with its own rank: 4 lines, each right.
#[test]
fn every_pe_reads_its_rank() {
    let outcomes = launcher("report", 4).run().unwrap();
    check_outcomes(&outcomes).unwrap();
    let mut seen = 0;
    for o in &outcomes {
        let want = format!("rank {} 4 {} ptx-sync", o.pe, o.pe);
        assert_eq!(
            o.stdout.lines().filter(|l| *l == want).count(),
            1,
            "{}",
            o.stdout
        );
        seen += 1;
    }
    assert_eq!(seen, 4);
}

/// PE 1 of 3 exits 3; PEs 0 and 2 are killed after a 500 ms grace; the error names PE 1.
#[test]
fn a_failing_pe_is_named_and_the_others_are_killed() {
    let start = Instant::now();
    let outcomes = launcher("pe1-fails", 3)
        .grace(Duration::from_millis(500))
        .run()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(outcomes.len(), 3);
    assert_eq!(outcomes.iter().filter(|o| o.killed).count(), 2);
    assert_eq!(outcomes[1].status.code(), Some(3));
    assert!(
        outcomes[1].stderr.contains("PE 1 gives up"),
        "{}",
        outcomes[1].stderr
    );
    for pe in [0, 2] {
        assert!(outcomes[pe].killed, "{:?}", outcomes[pe]);
        assert!(outcomes[pe].stdout.contains(&format!("PE {pe} waits")));
    }
    match check_outcomes(&outcomes) {
        Err(Error::PeFailed { pe: 1, status }) => assert_eq!(status, "exit status 3"),
        other => panic!("{other:?}"),
    }
}

/// `run_local` in a PE sets up the world, which fails here before any collective call (no
/// NVSHMEM, or no GPU): both PEs exit 1 saying why, neither hangs.
#[test]
fn run_local_in_a_pe_reports_why_the_world_cannot_start() {
    let outcomes = launcher("world", 2)
        .env("PTX_SYNC_NVSHMEM_TIMEOUT", "5")
        .limit(Duration::from_secs(120))
        .run()
        .unwrap();
    let mut explained = 0;
    for o in &outcomes {
        let line = o
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("PE {}: ", o.pe)));
        let Some(line) = line else {
            panic!("PE {}: no report\n{}\n{}", o.pe, o.stdout, o.stderr);
        };
        if line.ends_with(": Ok") {
            // A machine with NVSHMEM and two GPUs: the world came up and went down.
            assert!(o.success());
        } else {
            assert_eq!(o.status.code(), Some(1), "{line}");
            assert!(
                line.contains("NVSHMEM's host library libnvshmem_host.so.3 was not found")
                    || line.contains("no CUDA driver")
                    || line.contains("there is no GPU"),
                "{line}"
            );
        }
        explained += 1;
    }
    assert_eq!(explained, 2);
}
