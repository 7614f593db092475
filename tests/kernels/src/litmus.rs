//! Litmus probe (issue 5, first step): MP with many instances per launch. Role `r` of instance
//! `i` runs on thread `(i * p + r * shift) mod n` (litmus/src/layout.rs); a thread finds its
//! instance for each role with `p`'s inverse. Locations are `stride` words apart. A bounded
//! rendezvous on `%globaltimer` lines the threads up before the test.

use ptx_sync::{wait::global_timer_ns, Atomic, Gpu, Ordering::*};

/// Block 0 thread 0 publishes a start time 20 us ahead; every thread polls for it (giving up
/// after 2 ms: a rendezvous that cannot hang) and then spins until that time.
#[inline(always)]
unsafe fn rendezvous(start: *mut u64) {
    let s = Atomic::<u64, Gpu>::from_ptr(start);
    if crate::global_id() == 0 {
        s.store(global_timer_ns() + 20_000, Relaxed);
    }
    let give_up = global_timer_ns() + 2_000_000;
    let mut t = 0;
    while t == 0 && global_timer_ns() < give_up {
        t = s.load(Relaxed);
    }
    while global_timer_ns() < t {}
}

/// MP: role 0 writes x = 1 then y = 1; role 1 reads y then x into `out[2i..2i+2]`.
/// `sync != 0`: release store / acquire load at `.gpu`; otherwise all relaxed.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_mp(
    mem: *mut u32,
    out: *mut u32,
    start: *mut u64,
    params: *const u64, // [n, p_inv, shift, stride, sync]
) {
    let (n, p_inv, shift, stride, sync) = (
        *params,
        *params.add(1),
        *params.add(2),
        *params.add(3),
        *params.add(4),
    );
    let t = crate::global_id() as u64;
    let instance = |role: u64| ((t + n - (role * shift) % n) % n * p_inv) % n;
    let loc =
        |i: u64, l: u64| Atomic::<u32, Gpu>::from_ptr(mem.add(((i * 2 + l) * stride) as usize));
    rendezvous(start);
    let w = instance(0);
    let r = instance(1);
    // Writer first, then reader: the two roles of one instance run on different CTAs at once.
    loc(w, 0).store(1, Relaxed);
    loc(w, 1).store(1, if sync != 0 { Release } else { Relaxed });
    let r0 = loc(r, 1).load(if sync != 0 { Acquire } else { Relaxed });
    let r1 = loc(r, 0).load(Relaxed);
    *out.add(2 * r as usize) = r0;
    *out.add(2 * r as usize + 1) = r1;
}

/// Any litmus shape, from data (litmus/src/tests.rs): `prog[r * 4 + k]` is role `r`'s
/// instruction `k` encoded as `op | loc << 8 | value << 16` (op 1 = store, 2 = load,
/// 3 = fence, 0 = end). Synchronized (`sync != 0`): every store `st.release.gpu`, every load
/// `ld.acquire.gpu`, fences `fence.sc.gpu`; otherwise everything relaxed and no fences.
/// One role per thread (litmus/src/layout.rs `Groups`): thread `t` plays role `t / group` of
/// instance `(t % group) * multiplier % group`; loads go to `out[i * regs + base_r + j]`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_shape(
    mem: *mut u32,
    out: *mut u32,
    start: *mut u64,
    params: *const u64, // [group, multiplier, 0, stride, sync, roles, locations, regs]
    prog: *const u32,   // [roles * 4] instructions, then [roles] register bases
) {
    let (group, multiplier, stride, sync) =
        (*params, *params.add(1), *params.add(3), *params.add(4) != 0);
    let (roles, locations, regs) = (*params.add(5), *params.add(6), *params.add(7));
    let t = crate::global_id() as u64;
    rendezvous(start);
    let role = t / group;
    if role >= roles {
        return;
    }
    let i = (t % group) * multiplier % group;
    let mut reg = i * regs + *prog.add((roles * 4 + role) as usize) as u64;
    for k in 0..4 {
        let insn = *prog.add((role * 4 + k) as usize);
        let (op, loc, value) = (insn & 0xff, (insn >> 8) & 0xff, insn >> 16);
        let a =
            Atomic::<u32, Gpu>::from_ptr(mem.add(((i * locations + loc as u64) * stride) as usize));
        match op {
            1 => a.store(value, if sync { Release } else { Relaxed }),
            2 => {
                *out.add(reg as usize) = a.load(if sync { Acquire } else { Relaxed });
                reg += 1;
            }
            3 if sync => ptx_sync::fence::<Gpu>(SeqCst),
            3 => {}
            _ => break,
        }
    }
}
