//! `AtomicFlag`, `AtomicPtr` and `AtomicBool` on the GPU (tests/kernels/src/flag.rs): a flag as
//! a lock around plain counters (one flag per 64 threads and one for the grid), a pointer
//! published from block to block with a CAS race and a swap ring, and boolean flags and
//! operations. Every count is exact.

use crate::{Ctx, GpuTest};
use ptx_sync_host::launch;
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const THREADS: u32 = 256;
/// How long a kernel's wait for another block may take before it counts a timeout.
const WAIT_NS: u64 = 2_000_000_000;

fn flag_lock(ctx: &Ctx) -> Result<String> {
    let (blocks, iters) = (ctx.gpu.sm_count(), 2u32);
    let gpu = &ctx.gpu;
    let kernel = ctx.kernel("flag_lock_counter")?;
    let groups = (blocks * THREADS / 64) as usize;
    let flags = gpu.zeros::<u32>(1 + groups)?;
    let counters = gpu.zeros::<u32>(1 + groups)?;
    let stats = gpu.zeros::<u32>(64)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&flags, &counters, &stats, iters)) }?;
    gpu.wait(TIMEOUT)?;
    let flags = gpu.download(&flags)?;
    let counters = gpu.download(&counters)?;
    let stats = gpu.download(&stats)?;
    let total = blocks * THREADS * iters;
    if counters[0] != total || stats[32] != 1 || stats[0] != 0 {
        return Err(format!(
            "grid flag: counter {} (expected {total}), most holders {}, holders left {}",
            counters[0], stats[32], stats[0]
        )
        .into());
    }
    if let Some((g, c)) = counters[1..]
        .iter()
        .enumerate()
        .find(|(_, &c)| c != 64 * iters)
    {
        return Err(format!("group {g}: counter {c}, expected {}", 64 * iters).into());
    }
    if let Some(i) = flags.iter().position(|&f| f != 0) {
        return Err(format!("flag {i} left set ({})", flags[i]).into());
    }
    Ok(format!(
        "{blocks}x{THREADS} threads, {iters} rounds: {total} critical sections under one flag, \
         {groups} flags of 64 threads with {} each, exact; most holders at once: 1",
        64 * iters
    ))
}

fn ptr_publish(ctx: &Ctx) -> Result<String> {
    let blocks = ctx.gpu.sm_count();
    let gpu = &ctx.gpu;
    let kernel = ctx.kernel("atomic_ptr_publish")?;
    let slots = gpu.zeros::<u64>(blocks as usize)?;
    let data = gpu.zeros::<u32>((blocks * THREADS) as usize)?;
    let winner = gpu.zeros::<u64>(1)?;
    let ring = gpu.zeros::<u64>(1)?;
    let out = gpu.zeros::<u32>(4 * blocks as usize + 1)?;
    unsafe {
        launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&slots, &data, &winner, &ring, &out, WAIT_NS))
    }?;
    gpu.wait(TIMEOUT)?;
    let out = gpu.download(&out)?;
    let timeouts = out[4 * blocks as usize];
    let rows: Vec<&[u32]> = out[..4 * blocks as usize].chunks(4).collect();
    let bad: u32 = rows.iter().map(|r| r[0]).sum();
    if bad != 0 || timeouts != 0 {
        return Err(format!("{bad} wrong pointers or elements, {timeouts} waits timed out").into());
    }
    let winners: Vec<usize> = (0..rows.len()).filter(|&b| rows[b][1] == 1).collect();
    if winners.len() != 1 || rows[..].iter().any(|r| r[2] != winners[0] as u32 + 1) {
        return Err(format!(
            "CAS from null: winners {winners:?}, seen as {:?}",
            rows.iter().map(|r| r[2]).collect::<Vec<_>>()
        )
        .into());
    }
    // The swaps took out null once and every other block's address at most once; the one
    // address never taken out is what the ring holds at the end.
    let mut taken: Vec<u32> = rows.iter().map(|r| r[3]).collect();
    taken.sort_unstable();
    let distinct = taken.windows(2).all(|w| w[0] != w[1]);
    if !distinct || taken[0] != 0 || taken.iter().any(|&i| i > blocks) {
        return Err(format!("swap ring: values taken out {taken:?}").into());
    }
    Ok(format!(
        "{blocks} blocks: each read its neighbour's {THREADS} elements through the published \
         pointer (st.release/ld.acquire .b64), one CAS winner seen by all, swaps conserved"
    ))
}

/// `old | new << 1` of truth-table entry `i` (see the kernel).
fn truth(i: u32) -> u32 {
    let (a, b) = (i & 1 != 0, i >> 1 & 1 != 0);
    let new = match i / 4 {
        0 => a & b,
        1 => a | b,
        2 => a ^ b,
        3 => !(a & b),
        4 => !a,
        5 => b,
        6 => {
            if a {
                b
            } else {
                a
            }
        }
        _ => !b,
    };
    a as u32 | (new as u32) << 1
}

fn bool_flags(ctx: &Ctx) -> Result<String> {
    let blocks = ctx.gpu.sm_count();
    let gpu = &ctx.gpu;
    let kernel = ctx.kernel("atomic_bool_flags")?;
    let words = gpu.zeros::<u32>(128 + 2 * blocks as usize)?;
    let table = gpu.zeros::<u32>(32)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&words, &table, WAIT_NS)) }?;
    gpu.wait(TIMEOUT)?;
    let w = gpu.download(&words)?;
    let table = gpu.download(&table)?;
    let want: Vec<u32> = (0..32).map(truth).collect();
    if table != want {
        return Err(format!("truth table (old | new << 1) {table:?}, expected {want:?}").into());
    }
    let n = blocks * THREADS;
    let expect = [1, 1, n % 2, n / 2, 0, 0];
    if w[..6] != expect {
        return Err(format!(
            "[elected, winners, toggle, saw true, payload mismatches, timeouts] = {:?}, expected {expect:?}",
            &w[..6]
        ).into());
    }
    let ready = &w[128 + blocks as usize..];
    if ready.iter().any(|&r| r != 1) {
        return Err(format!("ready flags {ready:?}").into());
    }
    Ok(format!(
        "truth table of 8 operations exact; {n} threads: one fetch_or winner, {n} fetch_not \
         flips ({} saw true), {blocks} ready flags passed payloads block to block",
        n / 2
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "atomic_flag_lock_exact" => flag_lock,
        "atomic_ptr_publish_between_blocks" => ptr_publish,
        "atomic_bool_flags_exact" => bool_flags,
    ]
}
