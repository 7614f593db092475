//! Every RMW under heavy contention at every scope, with placement matching the scope:
//! `Cta` (and `Cluster`, whose clusters are single blocks in a plain launch) contend per block
//! on the block's own word; `Gpu` and `Sys` contend grid-wide on one word. Results are exact.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{DeviceRepr, PushKernelArg, ValidAsZeroBits};
use ptx_sync_testkit::{launch_config, Result};
use std::fmt::Debug;
use std::time::Duration;

#[allow(dead_code)]
mod shared {
    include!("../../mix.rs");
}
use shared::{float_step, mix, op, or_and_slot, BLOCK_STRIDE};

const THREADS: u32 = 256;
const ITERS: u32 = 16;
/// A compare-exchange loop on one word costs O(threads) retries per success: fewer rounds keep
/// the grid-wide case at a fraction of a second while still contending with every thread.
const CAS_ITERS: u32 = 2;

fn iters(op: u32) -> u32 {
    if op == op::CAS_LOOP_ADD {
        CAS_ITERS
    } else {
        ITERS
    }
}
const INC_LIMIT: u32 = 1000;
const TIMEOUT: Duration = Duration::from_secs(60);

/// Host arithmetic for one integer type, mirroring what the kernel did.
trait Word: Copy + Eq + Debug + DeviceRepr + ValidAsZeroBits + Unpin + 'static {
    const MIN: Self;
    const MAX: Self;
    const BITS: u32;
    fn from_mix(x: u64) -> Self;
    fn from_count(n: u64) -> Self;
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    /// The bits, zero-extended.
    fn bits(self) -> u64;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const BITS: u32 = <$t>::BITS;
            fn from_mix(x: u64) -> Self { x as $t }
            fn from_count(n: u64) -> Self { n as $t }
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn xor(self, o: Self) -> Self { self ^ o }
            fn neg(self) -> Self { self.wrapping_neg() }
            fn min(self, o: Self) -> Self { Ord::min(self, o) }
            fn max(self, o: Self) -> Self { Ord::max(self, o) }
            fn bits(self) -> u64 { self as u64 & (u64::MAX >> (64 - <$t>::BITS)) }
        }
    )*};
}
word!(u32, i32, u64, i64);

fn grid(ctx: &Ctx) -> u32 {
    2 * ctx.gpu.sm_count()
}

/// The word's start value for `op`, and what it must hold afterwards, for the threads `group`.
fn expect<T: Word>(op: u32, group: std::ops::Range<u32>, acc: &[T]) -> (T, T, Option<(T, T)>) {
    let n = (group.len() as u64) * iters(op) as u64;
    let each = || {
        group
            .clone()
            .flat_map(move |t| (0..iters(op)).map(move |i| T::from_mix(mix(t, i))))
    };
    match op {
        op::FETCH_ADD | op::CAS_LOOP_ADD | op::RED_ADD => {
            (T::from_count(0), T::from_count(n), None)
        }
        op::FETCH_SUB => (T::from_count(0), T::from_count(n).neg(), None),
        op::FETCH_XOR => (
            T::from_count(0),
            each().fold(T::from_count(0), T::xor),
            None,
        ),
        op::FETCH_MIN => (T::MAX, each().fold(T::MAX, T::min), None),
        op::FETCH_MAX => (T::MIN, each().fold(T::MIN, T::max), None),
        // Checked by `check_or_and`; all its words start at 0.
        op::FETCH_OR_AND => (T::from_count(0), T::from_count(0), None),
        op::FETCH_INC => (
            T::from_count(0),
            T::from_count(n % (INC_LIMIT as u64 + 1)),
            None,
        ),
        op::FETCH_DEC => {
            let m = INC_LIMIT as u64 + 1;
            (T::from_count(0), T::from_count((m - n % m) % m), None)
        }
        op::SWAP => {
            // Values are conserved: what was swapped out plus what is left equals what was
            // swapped in plus the start value (0).
            let swapped_in = each().fold(T::from_count(0), T::add);
            let swapped_out = group
                .map(|t| acc[t as usize])
                .fold(T::from_count(0), T::add);
            (
                T::from_count(0),
                T::from_count(0),
                Some((swapped_in, swapped_out)),
            )
        }
        _ => unreachable!(),
    }
}

/// `FETCH_OR_AND` for one group of `n` threads that ran `iters` rounds (kernel:
/// tests/kernels/src/atomics.rs), from the group's words (`words[0]`, the word the group only
/// `fetch_or`s, then its set/clear words) and its threads' `acc`. Exact:
/// - each of the `2 n iters` RMWs on the set/clear words returned the thread's own bit as its
///   owner left it (clear to `fetch_or`, set to `fetch_and`), and every set/clear word is back
///   at 0;
/// - the first word holds every bit position the group used, and exactly one `fetch_or` per bit
///   position found it clear there.
///
/// A `fetch_or` that sets nothing fails all three counts; one that is not atomic with the
/// others loses bits that their owners' `fetch_and` then finds clear. Returns the RMWs checked.
fn check_or_and<T: Word>(n: u32, iters: u32, words: &[T], acc: &[T]) -> Result<u64> {
    let slots = n.div_ceil(T::BITS) as usize;
    if words.len() < 1 + slots || acc.len() != n as usize {
        return Err(format!(
            "layout: {n} threads need {} words and {n} results, got {} and {}",
            1 + slots,
            words.len(),
            acc.len()
        )
        .into());
    }
    let used = (0..n).fold(0u64, |m, i| m | 1 << or_and_slot(i, n, T::BITS).1);
    let (passes, firsts) = acc.iter().fold((0u64, 0u64), |(p, f), a| {
        (p + (a.bits() & 0xffff), f + (a.bits() >> 16))
    });
    let want_passes = 2 * n as u64 * iters as u64;
    let want_firsts = used.count_ones() as u64;
    let first_word = words[0].bits();
    let not_cleared = words[1..=slots].iter().filter(|w| w.bits() != 0).count();
    if passes != want_passes || firsts != want_firsts || first_word != used || not_cleared != 0 {
        return Err(format!(
            "{passes} of {want_passes} set/clear RMWs returned the owner's bit as it left it; \
             {firsts} fetch_or found their bit clear in the shared word (expected {want_firsts}, \
             one per bit position); shared word {first_word:#x} (expected {used:#x}); \
             {not_cleared} of {slots} set/clear words not back at 0"
        )
        .into());
    }
    Ok(3 * n as u64 * iters as u64)
}

const OPS: [(u32, &str); 11] = [
    (op::FETCH_ADD, "fetch_add"),
    (op::FETCH_SUB, "fetch_sub"),
    (op::CAS_LOOP_ADD, "cas_loop_add"),
    (op::FETCH_XOR, "fetch_xor"),
    (op::FETCH_MIN, "fetch_min"),
    (op::FETCH_MAX, "fetch_max"),
    (op::RED_ADD, "red_add"),
    (op::SWAP, "swap"),
    (op::FETCH_OR_AND, "fetch_or_and"),
    (op::FETCH_INC, "fetch_inc"),
    (op::FETCH_DEC, "fetch_dec"),
];

fn contend<T: Word>(ctx: &Ctx, ty: &str, scope: &str, per_block: bool) -> Result<String> {
    let kernel = ctx.kernel(&format!("contend_{ty}_{scope}"))?;
    let blocks = grid(ctx);
    let threads = blocks * THREADS;
    let stream = ctx.gpu.stream();
    let mut checked = 0u64;
    for (opcode, name) in OPS {
        if matches!(opcode, op::FETCH_INC | op::FETCH_DEC) && ty != "u32" {
            continue;
        }
        // Two orders per op, spread so every order runs on every type and scope.
        for order in [opcode % 5, (opcode + 2) % 5] {
            let groups: Vec<std::ops::Range<u32>> = if per_block {
                (0..blocks)
                    .map(|b| b * THREADS..(b + 1) * THREADS)
                    .collect()
            } else {
                std::iter::once(0..threads).collect()
            };
            let start = expect::<T>(opcode, 0..0, &[]).0;
            let mut words_host = vec![T::from_count(0); blocks as usize * BLOCK_STRIDE];
            for g in 0..groups.len() {
                words_host[g * BLOCK_STRIDE] = start;
            }
            let words = stream
                .clone_htod(&words_host)
                .map_err(|e| format!("upload: {e}"))?;
            let acc = stream
                .alloc_zeros::<T>(threads as usize)
                .map_err(|e| format!("alloc: {e}"))?;
            let cfg = launch_config(blocks, THREADS, 0);
            let pb = per_block as u32;
            let mut b = stream.launch_builder(kernel.function());
            let n_iters = iters(opcode);
            b.arg(&words)
                .arg(&opcode)
                .arg(&n_iters)
                .arg(&pb)
                .arg(&order)
                .arg(&INC_LIMIT)
                .arg(&acc);
            unsafe { b.launch(cfg) }.map_err(|e| format!("{name}: launch: {e}"))?;
            ctx.gpu.wait(TIMEOUT).map_err(|e| format!("{name}: {e}"))?;
            let words_out = stream
                .clone_dtoh(&words)
                .map_err(|e| format!("download: {e}"))?;
            let acc_out = stream
                .clone_dtoh(&acc)
                .map_err(|e| format!("download: {e}"))?;
            for (g, range) in groups.into_iter().enumerate() {
                if opcode == op::FETCH_OR_AND {
                    // A block's words end at the next block's; the grid-wide group has them all.
                    let words_g = if per_block {
                        &words_out[g * BLOCK_STRIDE..(g + 1) * BLOCK_STRIDE]
                    } else {
                        &words_out[..]
                    };
                    let acc_g = &acc_out[range.start as usize..range.end as usize];
                    checked += check_or_and(range.len() as u32, n_iters, words_g, acc_g)
                        .map_err(|m| format!("{name} order {order} group {g}: {m}"))?;
                    continue;
                }
                let (_, want, conserved) = expect::<T>(opcode, range.clone(), &acc_out);
                let got = words_out[g * BLOCK_STRIDE];
                match conserved {
                    None if got != want => {
                        return Err(format!("{name} order {order} group {g}: word = {got:?}, expected {want:?}").into())
                    }
                    Some((swapped_in, swapped_out)) if swapped_out.add(got) != swapped_in => {
                        return Err(format!(
                            "{name} order {order} group {g}: swapped out {swapped_out:?} + left {got:?} != swapped in {swapped_in:?}"
                        ).into())
                    }
                    _ => {}
                }
                checked += range.len() as u64 * iters(opcode) as u64;
            }
        }
    }
    Ok(format!(
        "{checked} contended operations checked, {blocks}x{THREADS} threads"
    ))
}

/// Float adds (`fetch_add`, then `red_add`): every partial sum is a multiple of 1/4 below 2^22,
/// exact in f32 and f64 whatever the order, so the sum must equal the host's exactly.
fn contend_float<T>(ctx: &Ctx, ty: &str, scope: &str, per_block: bool) -> Result<String>
where
    T: DeviceRepr + ValidAsZeroBits + Copy + Unpin + Into<f64>,
{
    let kernel = ctx.kernel(&format!("contend_{ty}_{scope}"))?;
    let blocks = grid(ctx);
    let stream = ctx.gpu.stream();
    let groups: Vec<std::ops::Range<u32>> = if per_block {
        (0..blocks)
            .map(|b| b * THREADS..(b + 1) * THREADS)
            .collect()
    } else {
        std::iter::once(0..blocks * THREADS).collect()
    };
    let cfg = launch_config(blocks, THREADS, 0);
    let pb = per_block as u32;
    for use_red in [0u32, 1] {
        let words = stream.alloc_zeros::<T>(blocks as usize * BLOCK_STRIDE)?;
        let mut b = stream.launch_builder(kernel.function());
        b.arg(&words).arg(&ITERS).arg(&pb).arg(&use_red);
        unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
        let out = stream.clone_dtoh(&words)?;
        for (g, range) in groups.iter().enumerate() {
            let got: f64 = out[g * BLOCK_STRIDE].into();
            let want: f64 = range
                .clone()
                .map(|t| float_step(t) as f64 * ITERS as f64)
                .sum();
            if got != want {
                let how = if use_red == 1 { "red_add" } else { "fetch_add" };
                return Err(format!("{how} group {g}: sum {got}, host reference {want}").into());
            }
        }
    }
    Ok(format!(
        "{} float adds summed exactly",
        2 * blocks as u64 * THREADS as u64 * ITERS as u64
    ))
}

fn tickets(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("tickets_gpu")?;
    let blocks = grid(ctx);
    let total = (blocks * THREADS * ITERS) as usize;
    let stream = ctx.gpu.stream();
    let counter = stream.alloc_zeros::<u32>(1)?;
    let seen = stream.alloc_zeros::<u32>(total)?;
    let cfg = launch_config(blocks, THREADS, 0);
    let mut b = stream.launch_builder(kernel.function());
    b.arg(&counter).arg(&seen).arg(&ITERS);
    unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let seen = stream.clone_dtoh(&seen)?;
    let counter = stream.clone_dtoh(&counter)?[0];
    if counter as usize != total {
        return Err(format!("counter ended at {counter}, expected {total}").into());
    }
    if let Some((t, n)) = seen.iter().enumerate().find(|(_, &n)| n != 1) {
        return Err(format!("ticket {t} handed out {n} times").into());
    }
    Ok(format!("{total} fetch_add tickets, each exactly once"))
}

macro_rules! int_cases {
    ($($name:literal => $t:ty, $ty:literal, $scope:literal, $pb:expr;)*) => {
        vec![$(GpuTest { name: $name, timeout: TIMEOUT, run: |ctx| contend::<$t>(ctx, $ty, $scope, $pb) },)*]
    };
}

pub fn tests() -> Vec<GpuTest> {
    let mut v = int_cases! {
        "atomics_u32_cta" => u32, "u32", "cta", true;
        "atomics_u32_cluster" => u32, "u32", "cluster", true;
        "atomics_u32_gpu" => u32, "u32", "gpu", false;
        "atomics_u32_sys" => u32, "u32", "sys", false;
        "atomics_i32_cta" => i32, "i32", "cta", true;
        "atomics_i32_cluster" => i32, "i32", "cluster", true;
        "atomics_i32_gpu" => i32, "i32", "gpu", false;
        "atomics_i32_sys" => i32, "i32", "sys", false;
        "atomics_u64_cta" => u64, "u64", "cta", true;
        "atomics_u64_cluster" => u64, "u64", "cluster", true;
        "atomics_u64_gpu" => u64, "u64", "gpu", false;
        "atomics_u64_sys" => u64, "u64", "sys", false;
        "atomics_i64_cta" => i64, "i64", "cta", true;
        "atomics_i64_cluster" => i64, "i64", "cluster", true;
        "atomics_i64_gpu" => i64, "i64", "gpu", false;
        "atomics_i64_sys" => i64, "i64", "sys", false;
    };
    v.extend(crate::cases![
        TIMEOUT;
        "atomics_f32_cta" => |c| contend_float::<f32>(c, "f32", "cta", true),
        "atomics_f32_gpu" => |c| contend_float::<f32>(c, "f32", "gpu", false),
        "atomics_f32_sys" => |c| contend_float::<f32>(c, "f32", "sys", false),
        "atomics_f64_cta" => |c| contend_float::<f64>(c, "f64", "cta", true),
        "atomics_f64_gpu" => |c| contend_float::<f64>(c, "f64", "gpu", false),
        "atomics_f64_sys" => |c| contend_float::<f64>(c, "f64", "sys", false),
        "atomics_fetch_add_tickets_unique" => tickets,
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

    /// The kernel's `FETCH_OR_AND` rounds for one block of `n` threads, on host threads and
    /// std atomics; `or_sets` false: a `fetch_or` that sets nothing (returns the word).
    fn simulate(n: u32, or_sets: bool) -> (Vec<u32>, Vec<u32>) {
        let words: Vec<AtomicU32> = (0..BLOCK_STRIDE).map(|_| AtomicU32::new(0)).collect();
        let fetch_or = |w: &AtomicU32, bit| {
            if or_sets {
                w.fetch_or(bit, Relaxed)
            } else {
                w.load(Relaxed)
            }
        };
        let acc = std::thread::scope(|s| {
            let threads: Vec<_> = (0..n)
                .map(|index| {
                    let (words, fetch_or) = (&words, &fetch_or);
                    s.spawn(move || {
                        let (w, b) = or_and_slot(index, n, u32::BITS);
                        let (bit, own) = (1u32 << b, &words[1 + w as usize]);
                        let (mut passes, mut firsts) = (0u32, 0u32);
                        for _ in 0..ITERS {
                            passes += (fetch_or(own, bit) & bit == 0) as u32;
                            firsts += (fetch_or(&words[0], bit) & bit == 0) as u32;
                            passes += (own.fetch_and(!bit, Relaxed) & bit != 0) as u32;
                        }
                        passes | firsts << 16
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        (words.iter().map(|w| w.load(Relaxed)).collect(), acc)
    }

    #[test]
    fn fetch_or_and_check_passes_a_correct_run_and_catches_a_fetch_or_that_sets_nothing() {
        let (words, acc) = simulate(THREADS, true);
        assert_eq!(
            check_or_and(THREADS, ITERS, &words, &acc).unwrap(),
            3 * THREADS as u64 * ITERS as u64
        );
        assert_eq!(words[0], u32::MAX, "256 threads use all 32 bit positions");
        let (words, acc) = simulate(THREADS, false);
        let err = check_or_and(THREADS, ITERS, &words, &acc)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("4096 of 8192 set/clear RMWs") && err.contains("4096 fetch_or found"),
            "{err}"
        );
    }
}
