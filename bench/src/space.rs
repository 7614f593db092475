//! The Rust side of the state-space rows (bench/kernels/src/space.rs): generic atomics against
//! `.shared::cta` / `.global` ones, with the shapes and checks of bench/cpp/space.inc.
//!
//! - `space/shared_fetch_add/{generic,shared}`: 264 blocks x 256 threads x 256 `fetch_add(1)`
//!   on one `shared!` counter per block. Checked: every block's counter is 65,536 and its
//!   threads' returned values sum to N(N-1)/2.
//! - `space/shared_spinlock/{generic,shared}`: 132 blocks x 256 threads x 16 critical sections
//!   on one `shared!` spinlock per block. Checked: every block's counter is 4,096.
//! - `space/global_fetch_add/{generic,global}`: 264 x 256 threads x 256 `fetch_add(1)` on a
//!   word of their own. Checked: every word is 256, every thread's returned values sum to
//!   256 x 255 / 2.

use crate::reference::Sample;
use crate::rust_cases::timed;
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::{Device, Module};
use ptx_sync_testkit::{launch_config, Result};

const BLOCKS: u32 = 264;
const THREADS: u32 = 256;
const ITERS: i32 = 256;
const LOCK_BLOCKS: u32 = 132;
const LOCK_ITERS: i32 = 16;

/// The rows, in table order.
pub fn names() -> Vec<String> {
    [
        "space/shared_fetch_add/generic",
        "space/shared_fetch_add/shared",
        "space/shared_spinlock/generic",
        "space/shared_spinlock/shared",
        "space/global_fetch_add/generic",
        "space/global_fetch_add/global",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// One timed, checked launch of `case`, if it is one of these rows.
pub fn run(gpu: &Device, m: &Module, case: &str) -> Option<Sample> {
    let parts: Vec<&str> = case.split('/').collect();
    let kname = parts.join("__");
    Some(match parts.as_slice() {
        ["space", "shared_spinlock", _] => spinlock(gpu, m, &kname),
        ["space", "shared_fetch_add", _] => fetch_add(gpu, m, &kname, true),
        ["space", "global_fetch_add", _] => fetch_add(gpu, m, &kname, false),
        _ => return None,
    })
}

fn fetch_add(gpu: &Device, m: &Module, kname: &str, shared: bool) -> Sample {
    let n = (BLOCKS * THREADS) as usize;
    let groups = if shared { BLOCKS as usize } else { n };
    let k = m.kernel(kname)?;
    let words: CudaSlice<u32> = gpu.zeros(groups)?;
    let out: CudaSlice<u32> = gpu.zeros(n)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&words).arg(&out).arg(&ITERS);
    let ms = timed(gpu, b, launch_config(BLOCKS, THREADS, 0))?;
    let w = gpu.download(&words)?;
    let o = gpu.download(&out)?;
    check_fetch_add(&w, &o)?;
    Ok((ms, n as f64 * ITERS as f64))
}

/// Each of `words` is a group's counter, shared by `out.len() / words.len()` consecutive
/// threads: it ends at the group's op count N, and their returned values sum to N(N-1)/2.
fn check_fetch_add(words: &[u32], out: &[u32]) -> Result<()> {
    let per = out.len() / words.len();
    let ops = per as u64 * ITERS as u64;
    for (g, &w) in words.iter().enumerate() {
        let returned: u64 = out[g * per..(g + 1) * per].iter().map(|&v| v as u64).sum();
        if w as u64 != ops || returned != ops * (ops - 1) / 2 {
            return Err(format!(
                "wrong result: word {g} = {w} (expected {ops}), returned values sum to \
                 {returned} (expected {})",
                ops * (ops - 1) / 2
            )
            .into());
        }
    }
    Ok(())
}

fn spinlock(gpu: &Device, m: &Module, kname: &str) -> Sample {
    let k = m.kernel(kname)?;
    let counts: CudaSlice<u32> = gpu.zeros(LOCK_BLOCKS as usize)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&counts).arg(&LOCK_ITERS);
    let ms = timed(gpu, b, launch_config(LOCK_BLOCKS, THREADS, 0))?;
    let c = gpu.download(&counts)?;
    let want = THREADS * LOCK_ITERS as u32;
    if let Some(b) = c.iter().position(|&v| v != want) {
        return Err(format!("wrong result: block {b} counted {} (expected {want})", c[b]).into());
    }
    Ok((ms, LOCK_BLOCKS as f64 * want as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_match_the_cpp_list() {
        // bench/cpp/space.inc `space_names`, in the same order.
        let cpp = include_str!("../cpp/space.inc");
        let listed: Vec<String> = cpp
            .lines()
            .filter_map(|l| l.trim().strip_prefix("v.push_back(\""))
            .map(|l| l.trim_end_matches("\");").to_string())
            .collect();
        assert_eq!(listed, names());
    }

    #[test]
    fn the_fetch_add_check_passes_a_right_run_and_fails_wrong_ones() {
        // Two groups of 3 threads, each thread ITERS adds: what a right run leaves.
        let ops = 3 * ITERS as u32;
        let mut out = Vec::new();
        for _ in 0..2 {
            let mut next = 0u32;
            for _ in 0..3 {
                let mut s = 0u32;
                for _ in 0..ITERS {
                    s += next;
                    next += 1;
                }
                out.push(s);
            }
        }
        check_fetch_add(&[ops, ops], &out).unwrap();
        // A lost add, and a returned value counted twice.
        assert!(check_fetch_add(&[ops, ops - 1], &out).is_err());
        let mut twice = out.clone();
        twice[4] += 7;
        assert!(check_fetch_add(&[ops, ops], &twice).is_err());
    }
}
