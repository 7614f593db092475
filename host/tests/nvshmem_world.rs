//! Worlds of two PEs on a machine with two GPUs and NVSHMEM: set up, symmetric memory, a module
//! registered with `nvshmemx_cumodule_init` whose kernel reads its PE from NVSHMEM's device
//! state, finalize; a PE that exits during a collective call and one that never joins are
//! errors that name them, not hangs. Skipped (saying why) without two GPUs or NVSHMEM. The
//! module part runs where `PTX_SYNC_TEST_NVSHMEM_PTX` names a PTX with a kernel
//! `who(out: *mut u32)` that stores `nvshmemi_device_state_d`'s PE and PE count (the
//! ptx-sync-build test `nvshmem(true)` builds one).
#![cfg(feature = "nvshmem")]

use ptx_sync_host::nvshmem::{check_outcomes, LocalLauncher, World};
use ptx_sync_host::{launch, Device, Error, Result};
use std::time::{Duration, Instant};

/// Which PE [`world_pe`] plays, in the processes the tests below start.
const CASE: &str = "PTX_SYNC_TEST_WORLD_PE";

/// Not a test of its own: the body of the PEs the other tests start.
#[test]
fn world_pe() {
    let Ok(case) = std::env::var(CASE) else {
        return;
    };
    println!();
    if case == "never-joins" && std::env::var("PTX_SYNC_PE").as_deref() == Ok("1") {
        std::process::exit(0);
    }
    let start = Instant::now();
    let world = match (case != "exits").then(World::from_env).transpose() {
        Ok(Some(w)) => w,
        Ok(None) => {
            // `exits` sets its world up through run_local.
            let r = ptx_sync_host::nvshmem::run_local(None, exits);
            panic!("run_local returned {r:?} where it should have ended the process");
        }
        Err(e) => {
            println!(
                "init error after {:.1} s: {e:?}",
                start.elapsed().as_secs_f64()
            );
            std::process::exit(if case == "never-joins" { 0 } else { 1 });
        }
    };
    let pe = world.my_pe();
    println!(
        "PE {pe} of {}: init {:.2} s, {}",
        world.n_pes(),
        start.elapsed().as_secs_f64(),
        world.library_path().display()
    );
    let outcome = match case.as_str() {
        "basic" => basic(&world).and_then(|()| finalize_with_a_buffer_alive(world)),
        other => panic!("unknown case {other}"),
    };
    match outcome {
        Ok(()) => println!("PE {pe}: ok"),
        Err(e) => {
            println!("PE {pe}: {e}");
            std::process::exit(1);
        }
    }
}

fn basic(world: &World) -> Result<()> {
    let (pe, n) = (world.my_pe(), world.n_pes());
    let data = world.alloc::<u64>(1024)?;
    let zeros = data.download()?;
    assert_eq!(zeros.iter().filter(|&&x| x == 0).count(), 1024);
    let pattern: Vec<u64> = (0..1024).map(|i| pe as u64 * 1_000_000 + i).collect();
    data.write(0, &pattern)?;
    world.barrier_all()?;
    assert_eq!(world.gpu().download(&data)?, pattern);
    // Every PE's copy is at the same address.
    println!("PE {pe}: symmetric address {:#x}", data.device_ptr());
    let who = world.alloc::<u32>(2)?;
    if let Ok(ptx) = std::env::var("PTX_SYNC_TEST_NVSHMEM_PTX") {
        let module = world.load_ptx(&ptx)?;
        let gpu = world.gpu();
        unsafe { launch!(module.who<<<1, 1, 0, gpu>>>(&who)) }?;
        world.wait(Duration::from_secs(10))?;
        assert_eq!(
            who.download()?,
            [pe, n],
            "the device state's PE and PE count"
        );
        println!("PE {pe}: kernel read PE {pe} of {n} from the device state");
    }
    drop(who);
    drop(data);
    let t = Instant::now();
    world.barrier_all()?;
    println!("PE {pe}: barrier {:.3} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// A second world in one process is refused; finalize with a buffer alive says so, and the
/// buffer's drop then frees it and finalizes.
fn finalize_with_a_buffer_alive(world: World) -> Result<()> {
    match World::from_env() {
        Err(Error::NvshmemBootstrap { detail, .. }) => assert!(
            detail.starts_with("this process has a World already"),
            "{detail}"
        ),
        other => panic!("a second World: {other:?}"),
    }
    let keep = world.alloc::<u8>(1)?;
    match world.finalize() {
        Err(Error::Nvshmem { detail, .. }) => assert!(
            detail.starts_with("1 symmetric buffer of this world still alive"),
            "{detail}"
        ),
        other => panic!("finalize with a buffer alive: {other:?}"),
    }
    let t = Instant::now();
    drop(keep);
    println!(
        "free and finalize in the drop: {:.3} s",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// PE 1 exits without freeing or finalizing; PE 0's next collective call must end with
/// PeExited naming PE 1; the body returns Ok, and run_local, finding the world unusable, ends
/// PE 0 with status 1 at once (a normal exit hung there).
fn exits(world: &World) -> Result<()> {
    let pe = world.my_pe();
    let _data = world.alloc::<u64>(16)?;
    if pe == 1 {
        std::process::exit(7);
    }
    std::thread::sleep(Duration::from_millis(500));
    let t = Instant::now();
    match world.barrier_all() {
        Err(Error::PeExited { pe: 1, .. }) => {
            println!(
                "PE 0: PeExited for PE 1 after {:.2} s",
                t.elapsed().as_secs_f64()
            );
            // Drops skip the collective free and finalize: this returns at once.
            let t = Instant::now();
            drop(_data);
            println!(
                "PE 0: drop {:.3} s, usable: {:?}",
                t.elapsed().as_secs_f64(),
                world.usable().is_ok()
            );
            Ok(())
        }
        other => panic!("PE 0: expected PeExited for PE 1, got {other:?}"),
    }
}

/// Why this machine cannot run these, if it cannot.
fn skip() -> Option<String> {
    if let Err(why) = ptx_sync_host::driver_available() {
        return Some(why.to_string());
    }
    match Device::count() {
        Ok(n) if n >= 2 => {}
        Ok(n) => return Some(format!("{n} GPU(s), 2 needed")),
        Err(e) => return Some(e.to_string()),
    }
    ptx_sync_host::nvshmem::library_path()
        .err()
        .map(|e| e.to_string())
}

fn run(case: &str) -> Vec<ptx_sync_host::nvshmem::PeOutcome> {
    let start = Instant::now();
    let outcomes = LocalLauncher::new(std::env::current_exe().unwrap())
        .args(["world_pe", "--exact", "--nocapture", "--test-threads=1"])
        .n_pes(2)
        .env(CASE, case)
        .env("PTX_SYNC_NVSHMEM_TIMEOUT", "8")
        .capture_output(true)
        .limit(Duration::from_secs(90))
        .run()
        .unwrap();
    for o in &outcomes {
        println!(
            "--- {case}: PE {} {} after {:.2} s\n{}\n{}",
            o.pe,
            o.describe(),
            o.ended_after.as_secs_f64(),
            o.stdout,
            o.stderr
        );
    }
    println!("{case}: {:.2} s", start.elapsed().as_secs_f64());
    outcomes
}

#[test]
fn two_pes_set_up_a_world() {
    if let Some(why) = skip() {
        eprintln!("skipped: {why}");
        return;
    }
    let outcomes = run("basic");
    check_outcomes(&outcomes).unwrap();
    let ok = outcomes
        .iter()
        .filter(|o| o.stdout.lines().any(|l| l == format!("PE {}: ok", o.pe)))
        .count();
    assert_eq!(ok, 2);
}

#[test]
fn a_pe_that_exits_is_named() {
    if let Some(why) = skip() {
        eprintln!("skipped: {why}");
        return;
    }
    let outcomes = run("exits");
    assert_eq!(outcomes[1].status.code(), Some(7));
    // Ended by run_local, not killed after the grace.
    assert_eq!(
        (outcomes[0].status.code(), outcomes[0].killed),
        (Some(1), false),
        "{:?}",
        outcomes[0]
    );
    assert!(outcomes[0].stdout.contains("PE 0: PeExited for PE 1"));
    assert!(
        // The body returned Ok; the finalize it skipped is the error run_local prints.
        outcomes[0].stderr.contains(
            "PE 0: finalizing NVSHMEM: skipped (it is collective and would not return): PE 1 \
             (process "
        ),
        "{}",
        outcomes[0].stderr
    );
}

/// PE 1 exits before setting up its world: PE 0's init ends at the bootstrap timeout (8 s).
#[test]
fn a_pe_that_never_joins_is_a_bootstrap_timeout() {
    if let Some(why) = skip() {
        eprintln!("skipped: {why}");
        return;
    }
    let outcomes = run("never-joins");
    assert!(outcomes[0].success(), "{:?}", outcomes[0]);
    assert!(
        outcomes[0].stdout.contains("NvshmemBootstrapTimeout"),
        "{}",
        outcomes[0].stdout
    );
    assert!(outcomes[0].ended_after < Duration::from_secs(60));
}
