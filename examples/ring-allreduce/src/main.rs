//! A ring all-reduce of a `u64` vector across every GPU of this machine, one PE (process) per
//! GPU, on NVSHMEM, from a Rust kernel (../ring-allreduce-kernels).
//!
//! Run it with one command: `cargo run --release -p ring-allreduce`. Started by hand it is the
//! launcher: it starts itself once per GPU ([`nvshmem::run_local`]); started by torchrun,
//! mpirun or srun it is one PE and reads its rank from their variables (README, "Several
//! nodes"). Each PE checks the sum exactly and prints one line; the exit status is 0 only if
//! every PE's result is right.

use ptx_sync_host::nvshmem::{self, World};
use ptx_sync_host::{Error, launch};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The kernel crate's PTX with NVSHMEM's device code linked in (build.rs).
const PTX: &str = include_str!(env!("RING_ALLREDUCE_KERNELS_PTX"));

/// Elements per PE (a multiple of every PE count up to 8).
const LEN: u32 = 1 << 20;

fn value(pe: u32, i: u32) -> u64 {
    (pe as u64 + 1) * 1_000_003 + i as u64
}

fn allreduce(world: &World) -> Result<String, Error> {
    let (me, n) = (world.my_pe(), world.n_pes());
    let len = LEN - LEN % n;
    let chunk = (len / n) as usize;
    let kernels = world.load_ptx_str("ring_allreduce_kernels.ptx (embedded)", PTX)?;
    let data = world.alloc::<u64>(len as usize)?;
    let recv = world.alloc::<u64>(2 * (n as usize - 1).max(1) * chunk)?;
    let sig = world.alloc::<u64>(1)?;
    data.write(0, &(0..len).map(|i| value(me, i)).collect::<Vec<_>>())?;
    // Every PE's input is in place before any PE's kernel reads it.
    world.barrier_all()?;
    let start = Instant::now();
    let gpu = world.gpu();
    // Cooperative: the kernels of all PEs must run at once, as NVSHMEM's collective launch asks.
    unsafe {
        launch!(cooperative kernels.ring_allreduce<<<1, 1024, 0, gpu>>>(&data, &recv, &sig, len))
    }?;
    world.wait(Duration::from_secs(30))?;
    let took = start.elapsed();
    let got = data.download()?;
    let wrong = (0..len)
        .filter(|&i| got[i as usize] != (0..n).map(|p| value(p, i)).sum::<u64>())
        .count();
    if wrong != 0 {
        return Ok(format!("FAILED: {wrong} of {len} sums wrong"));
    }
    Ok(format!(
        "ok: {len} u64 summed over {n} PEs, all exact, {:.2} ms",
        took.as_secs_f64() * 1e3
    ))
}

fn main() -> ExitCode {
    // Launcher: one process per GPU of this machine. PE: World::from_env, then the closure.
    let result = nvshmem::run_local(None, |world| {
        let line = allreduce(world)?;
        println!("PE {} of {}: {line}", world.my_pe(), world.n_pes());
        if line.starts_with("ok") {
            Ok(())
        } else {
            Err(Error::Nvshmem {
                what: "ring all-reduce".into(),
                detail: line,
            })
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ring-allreduce: {e}");
            ExitCode::FAILURE
        }
    }
}
