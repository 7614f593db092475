//! The litmus shapes of `litmus/src/shapes.rs`, one function each, generic over the scope `S`
//! and `SYNC`: synchronized (every store `Release`, every load `Acquire`, the shape's fences
//! `fence::<S>(SeqCst)`) or the relaxed control (every access `Relaxed`, no fences).
//! Each testing thread plays every role, each for a different instance, in role order.
//! `litmus/tests/kernels_ptx.rs` checks each kernel's PTX against the shape table, so this file
//! and the table cannot drift apart.

use crate::harness::{enter, mark, Thread};
use crate::launch::Launch;
use ptx_sync::{fence, Cta, Gpu, Ordering, Ordering::*, Scope};

const X: u32 = 0;
const Y: u32 = 1;
const Z: u32 = 2;

const fn st(sync: bool) -> Ordering {
    if sync {
        Release
    } else {
        Relaxed
    }
}

const fn ld(sync: bool) -> Ordering {
    if sync {
        Acquire
    } else {
        Relaxed
    }
}

/// The shape's fence: `fence.sc` in the synchronized variant, nothing in the control.
#[inline(always)]
fn sc<S: Scope, const SYNC: bool>() {
    if SYNC {
        fence::<S>(SeqCst);
    }
}

/// Stores a role's registers after the test (plain stores: the tally kernel reads them).
#[inline(always)]
unsafe fn put(regs: *mut u32, first: usize, values: &[u32]) {
    for (k, v) in values.iter().enumerate() {
        *regs.add(first + k) = *v;
    }
}

/// A shape's prologue: `name = role loc, ...` binds each name to location `loc` of the
/// instance whose role `role` this thread plays ([`Thread::at`]), in the order given, all
/// before `t.go()`.
macro_rules! locations {
    ($t:ident: $($name:ident = $role:literal $loc:ident),+) => {
        $(let $name = $t.at::<S>($role, $loc);)+
    };
}

/// MP: St x 1; St y 1 || Ld y; Ld x.
#[inline(always)]
unsafe fn mp<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    y0.store(1, st(SYNC));
    mark!("role 1");
    let a = y1.load(ld(SYNC));
    let b = x1.load(ld(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a, b]);
}

/// SB: St x 1; F; Ld y || St y 1; F; Ld x.
#[inline(always)]
unsafe fn sb<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    sc::<S, SYNC>();
    let a = y0.load(ld(SYNC));
    mark!("role 1");
    y1.store(1, st(SYNC));
    sc::<S, SYNC>();
    let b = x1.load(ld(SYNC));
    mark!("end");
    put(t.regs(0), 0, &[a]);
    put(t.regs(1), 1, &[b]);
}

/// LB: Ld x; St y 1 || Ld y; St x 1.
#[inline(always)]
unsafe fn lb<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X);
    t.go();
    mark!("role 0");
    let a = x0.load(ld(SYNC));
    y0.store(1, st(SYNC));
    mark!("role 1");
    let b = y1.load(ld(SYNC));
    x1.store(1, st(SYNC));
    mark!("end");
    put(t.regs(0), 0, &[a]);
    put(t.regs(1), 1, &[b]);
}

/// S: St x 2; St y 1 || Ld y; St x 1 (final x).
#[inline(always)]
unsafe fn s<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(2, st(SYNC));
    y0.store(1, st(SYNC));
    mark!("role 1");
    let a = y1.load(ld(SYNC));
    x1.store(1, st(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a]);
}

/// R: St x 1; F; St y 1 || St y 2; F; Ld x (final y).
#[inline(always)]
unsafe fn r<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    sc::<S, SYNC>();
    y0.store(1, st(SYNC));
    mark!("role 1");
    y1.store(2, st(SYNC));
    sc::<S, SYNC>();
    let a = x1.load(ld(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a]);
}

/// 2+2W: St x 1; F; St y 2 || St y 1; F; St x 2 (finals x, y).
#[inline(always)]
unsafe fn two_plus_two_w<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    sc::<S, SYNC>();
    y0.store(2, st(SYNC));
    mark!("role 1");
    y1.store(1, st(SYNC));
    sc::<S, SYNC>();
    x1.store(2, st(SYNC));
    mark!("end");
}

/// WRC: St x 1 || Ld x; St y 1 || Ld y; Ld x.
#[inline(always)]
unsafe fn wrc<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, x1 = 1 X, y1 = 1 Y, y2 = 2 Y, x2 = 2 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    mark!("role 1");
    let a = x1.load(ld(SYNC));
    y1.store(1, st(SYNC));
    mark!("role 2");
    let b = y2.load(ld(SYNC));
    let c = x2.load(ld(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a]);
    put(t.regs(2), 1, &[b, c]);
}

/// ISA2: St x 1; St y 1 || Ld y; St z 1 || Ld z; Ld x.
#[inline(always)]
unsafe fn isa2<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y0 = 0 Y, y1 = 1 Y, z1 = 1 Z, z2 = 2 Z, x2 = 2 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    y0.store(1, st(SYNC));
    mark!("role 1");
    let a = y1.load(ld(SYNC));
    z1.store(1, st(SYNC));
    mark!("role 2");
    let b = z2.load(ld(SYNC));
    let c = x2.load(ld(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a]);
    put(t.regs(2), 1, &[b, c]);
}

/// IRIW: St x 1 || St y 1 || Ld x; F; Ld y || Ld y; F; Ld x.
#[inline(always)]
unsafe fn iriw<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, y1 = 1 Y, x2 = 2 X, y2 = 2 Y, y3 = 3 Y, x3 = 3 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    mark!("role 1");
    y1.store(1, st(SYNC));
    mark!("role 2");
    let a = x2.load(ld(SYNC));
    sc::<S, SYNC>();
    let b = y2.load(ld(SYNC));
    mark!("role 3");
    let c = y3.load(ld(SYNC));
    sc::<S, SYNC>();
    let d = x3.load(ld(SYNC));
    mark!("end");
    put(t.regs(2), 0, &[a, b]);
    put(t.regs(3), 2, &[c, d]);
}

/// RWC: St x 1 || Ld x; F; Ld y || St y 1; F; Ld x.
#[inline(always)]
unsafe fn rwc<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, x1 = 1 X, y1 = 1 Y, y2 = 2 Y, x2 = 2 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    mark!("role 1");
    let a = x1.load(ld(SYNC));
    sc::<S, SYNC>();
    let b = y1.load(ld(SYNC));
    mark!("role 2");
    y2.store(1, st(SYNC));
    sc::<S, SYNC>();
    let c = x2.load(ld(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a, b]);
    put(t.regs(2), 2, &[c]);
}

/// CoRR: St x 1 || Ld x; Ld x.
#[inline(always)]
unsafe fn corr<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    mark!("role 1");
    let a = x1.load(ld(SYNC));
    let b = x1.load(ld(SYNC));
    mark!("end");
    put(t.regs(1), 0, &[a, b]);
}

/// CoWW: St x 1; St x 2 (final x).
#[inline(always)]
unsafe fn coww<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    x0.store(2, st(SYNC));
    mark!("end");
}

/// CoRW: Ld x; St x 1 || St x 2 (final x).
#[inline(always)]
unsafe fn corw<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, x1 = 1 X);
    t.go();
    mark!("role 0");
    let a = x0.load(ld(SYNC));
    x0.store(1, st(SYNC));
    mark!("role 1");
    x1.store(2, st(SYNC));
    mark!("end");
    put(t.regs(0), 0, &[a]);
}

/// CoWR: St x 1; Ld x || St x 2 (final x).
#[inline(always)]
unsafe fn cowr<S: Scope, const SYNC: bool>(t: &Thread) {
    locations!(t: x0 = 0 X, x1 = 1 X);
    t.go();
    mark!("role 0");
    x0.store(1, st(SYNC));
    let a = x0.load(ld(SYNC));
    mark!("role 1");
    x1.store(2, st(SYNC));
    mark!("end");
    put(t.regs(0), 0, &[a]);
}

/// Stamps `litmus_<shape>_sync_gpu`, `_relaxed_gpu` and `_sync_cta` for each shape. The host
/// runs `_sync_cta` both with the roles in different CTAs (a control: `.cta` is too narrow)
/// and within one CTA (synchronized).
macro_rules! kernels {
    ($($shape:ident: $sync_gpu:ident $relaxed_gpu:ident $sync_cta:ident;)*) => {$(
        kernels!(@one $shape $sync_gpu Gpu true);
        kernels!(@one $shape $relaxed_gpu Gpu false);
        kernels!(@one $shape $sync_cta Cta true);
    )*};
    (@one $shape:ident $name:ident $scope:ident $sync:literal) => {
        /// # Safety
        /// Launched by the litmus runner with buffers sized from `*launch`.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            launch: *const Launch,
            mem: *mut u32,
            out: *mut u32,
            scratch: *mut u32,
            meet: *mut u32,
        ) {
            if let Some(t) = enter(launch, mem, out, scratch, meet) {
                $shape::<$scope, $sync>(&t);
            }
        }
    };
}

kernels! {
    mp: litmus_mp_sync_gpu litmus_mp_relaxed_gpu litmus_mp_sync_cta;
    sb: litmus_sb_sync_gpu litmus_sb_relaxed_gpu litmus_sb_sync_cta;
    lb: litmus_lb_sync_gpu litmus_lb_relaxed_gpu litmus_lb_sync_cta;
    s: litmus_s_sync_gpu litmus_s_relaxed_gpu litmus_s_sync_cta;
    r: litmus_r_sync_gpu litmus_r_relaxed_gpu litmus_r_sync_cta;
    two_plus_two_w: litmus_2p2w_sync_gpu litmus_2p2w_relaxed_gpu litmus_2p2w_sync_cta;
    wrc: litmus_wrc_sync_gpu litmus_wrc_relaxed_gpu litmus_wrc_sync_cta;
    isa2: litmus_isa2_sync_gpu litmus_isa2_relaxed_gpu litmus_isa2_sync_cta;
    iriw: litmus_iriw_sync_gpu litmus_iriw_relaxed_gpu litmus_iriw_sync_cta;
    rwc: litmus_rwc_sync_gpu litmus_rwc_relaxed_gpu litmus_rwc_sync_cta;
    corr: litmus_corr_sync_gpu litmus_corr_relaxed_gpu litmus_corr_sync_cta;
    coww: litmus_coww_sync_gpu litmus_coww_relaxed_gpu litmus_coww_sync_cta;
    corw: litmus_corw_sync_gpu litmus_corw_relaxed_gpu litmus_corw_sync_cta;
    cowr: litmus_cowr_sync_gpu litmus_cowr_relaxed_gpu litmus_cowr_sync_cta;
}
