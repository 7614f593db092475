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

/// Stamps one function per shape, generic over the scope `S` and `SYNC`, from the shape
/// written as its roles:
///
/// ```text
/// name(x0 = 0 X, y1 = 1 Y, ...) {      // prologue: x0 = location X of role 0's instance, ...
///     "role 0": St(x0, 1), F(), ...;   // St(loc, value); Ld(register, loc); F() the fence
///     "role 1": Ld(a, y1), ...;
///     end: put(1, 0, [a, b]), ...;     // registers of role 1's instance from index 0
/// }
/// ```
///
/// Every address is computed before `t.go()`, then each role's accesses run between its
/// `mark!`s (stores [`st`], loads [`ld`], fences [`sc`]), then the registers are stored.
macro_rules! shapes {
    ($(
        $(#[$doc:meta])*
        $name:ident($($loc:ident = $role:literal $at:ident),+) {
            $($label:literal: $($op:ident($($arg:tt)*)),+;)+
            end$(: $(put($r:literal, $first:literal, [$($reg:ident),+])),+)?;
        }
    )+) => {$(
        $(#[$doc])*
        #[inline(always)]
        unsafe fn $name<S: Scope, const SYNC: bool>(t: &Thread) {
            $(let $loc = t.at::<S>($role, $at);)+
            t.go();
            $(
                mark!($label);
                $(access!($op $($arg)*);)+
            )+
            mark!("end");
            $($(put(t.regs($r), $first, &[$($reg),+]);)+)?
        }
    )+};
}

/// One access of a role in [`shapes!`].
macro_rules! access {
    (St $loc:ident, $value:literal) => {
        $loc.store($value, st(SYNC));
    };
    (Ld $reg:ident, $loc:ident) => {
        let $reg = $loc.load(ld(SYNC));
    };
    (F) => {
        sc::<S, SYNC>();
    };
}

shapes! {
    /// MP: St x 1; St y 1 || Ld y; Ld x.
    mp(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X) {
        "role 0": St(x0, 1), St(y0, 1);
        "role 1": Ld(a, y1), Ld(b, x1);
        end: put(1, 0, [a, b]);
    }

    /// SB: St x 1; F; Ld y || St y 1; F; Ld x.
    sb(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X) {
        "role 0": St(x0, 1), F(), Ld(a, y0);
        "role 1": St(y1, 1), F(), Ld(b, x1);
        end: put(0, 0, [a]), put(1, 1, [b]);
    }

    /// LB: Ld x; St y 1 || Ld y; St x 1.
    lb(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X) {
        "role 0": Ld(a, x0), St(y0, 1);
        "role 1": Ld(b, y1), St(x1, 1);
        end: put(0, 0, [a]), put(1, 1, [b]);
    }

    /// S: St x 2; St y 1 || Ld y; St x 1 (final x).
    s(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X) {
        "role 0": St(x0, 2), St(y0, 1);
        "role 1": Ld(a, y1), St(x1, 1);
        end: put(1, 0, [a]);
    }

    /// R: St x 1; F; St y 1 || St y 2; F; Ld x (final y).
    r(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X) {
        "role 0": St(x0, 1), F(), St(y0, 1);
        "role 1": St(y1, 2), F(), Ld(a, x1);
        end: put(1, 0, [a]);
    }

    /// 2+2W: St x 1; F; St y 2 || St y 1; F; St x 2 (finals x, y).
    two_plus_two_w(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, x1 = 1 X) {
        "role 0": St(x0, 1), F(), St(y0, 2);
        "role 1": St(y1, 1), F(), St(x1, 2);
        end;
    }

    /// WRC: St x 1 || Ld x; St y 1 || Ld y; Ld x.
    wrc(x0 = 0 X, x1 = 1 X, y1 = 1 Y, y2 = 2 Y, x2 = 2 X) {
        "role 0": St(x0, 1);
        "role 1": Ld(a, x1), St(y1, 1);
        "role 2": Ld(b, y2), Ld(c, x2);
        end: put(1, 0, [a]), put(2, 1, [b, c]);
    }

    /// ISA2: St x 1; St y 1 || Ld y; St z 1 || Ld z; Ld x.
    isa2(x0 = 0 X, y0 = 0 Y, y1 = 1 Y, z1 = 1 Z, z2 = 2 Z, x2 = 2 X) {
        "role 0": St(x0, 1), St(y0, 1);
        "role 1": Ld(a, y1), St(z1, 1);
        "role 2": Ld(b, z2), Ld(c, x2);
        end: put(1, 0, [a]), put(2, 1, [b, c]);
    }

    /// IRIW: St x 1 || St y 1 || Ld x; F; Ld y || Ld y; F; Ld x.
    iriw(x0 = 0 X, y1 = 1 Y, x2 = 2 X, y2 = 2 Y, y3 = 3 Y, x3 = 3 X) {
        "role 0": St(x0, 1);
        "role 1": St(y1, 1);
        "role 2": Ld(a, x2), F(), Ld(b, y2);
        "role 3": Ld(c, y3), F(), Ld(d, x3);
        end: put(2, 0, [a, b]), put(3, 2, [c, d]);
    }

    /// RWC: St x 1 || Ld x; F; Ld y || St y 1; F; Ld x.
    rwc(x0 = 0 X, x1 = 1 X, y1 = 1 Y, y2 = 2 Y, x2 = 2 X) {
        "role 0": St(x0, 1);
        "role 1": Ld(a, x1), F(), Ld(b, y1);
        "role 2": St(y2, 1), F(), Ld(c, x2);
        end: put(1, 0, [a, b]), put(2, 2, [c]);
    }

    /// CoRR: St x 1 || Ld x; Ld x.
    corr(x0 = 0 X, x1 = 1 X) {
        "role 0": St(x0, 1);
        "role 1": Ld(a, x1), Ld(b, x1);
        end: put(1, 0, [a, b]);
    }

    /// CoWW: St x 1; St x 2 (final x).
    coww(x0 = 0 X) {
        "role 0": St(x0, 1), St(x0, 2);
        end;
    }

    /// CoRW: Ld x; St x 1 || St x 2 (final x).
    corw(x0 = 0 X, x1 = 1 X) {
        "role 0": Ld(a, x0), St(x0, 1);
        "role 1": St(x1, 2);
        end: put(0, 0, [a]);
    }

    /// CoWR: St x 1; Ld x || St x 2 (final x).
    cowr(x0 = 0 X, x1 = 1 X) {
        "role 0": St(x0, 1), Ld(a, x0);
        "role 1": St(x1, 2);
        end: put(0, 0, [a]);
    }
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
