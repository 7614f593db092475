//! Shared memory on the GPU: a `Shared<T>` is a 32-bit `.shared` address, accessed with
//! `ld/st.shared` and converted with `cvta`. Its GPU-only methods are here, where the address
//! is the representation.

use crate::shared::Shared;
use crate::shared_static::Symbol;
use core::marker::PhantomData;

/// A `.shared` address.
pub(crate) type Addr = u32;

/// The field's name in `Shared`'s `Debug` output.
pub(crate) const DEBUG_FIELD: &str = "addr";

impl Shared<u8> {
    /// The start of the launch's dynamic shared memory (16-byte aligned). GPU only.
    ///
    /// It starts after the variables that [`shared!`](crate::shared!) declared and this
    /// kernel uses (ptxas places those first).
    ///
    /// PTX: `mov.u32` of the module's `.extern .shared` array (its `.shared` address).
    #[inline(always)]
    pub fn dynamic() -> Shared<u8> {
        let addr: u32;
        // SAFETY: computes an address; reads no memory.
        unsafe {
            core::arch::asm!("mov.u32 {a}, ptx_sync_dynamic_smem;", a = out(reg32) addr,
                             options(nostack, nomem, pure))
        };
        Shared {
            addr,
            _t: PhantomData,
        }
    }
}

impl<T> Shared<T> {
    /// A handle at a `.shared` address. GPU only.
    ///
    /// # Safety
    /// None to call: the handle is a plain address, and its accesses are `unsafe`.
    #[inline(always)]
    pub(crate) const fn at_address(addr: u32) -> Shared<T> {
        Shared {
            addr,
            _t: PhantomData,
        }
    }

    /// The `.shared` address. GPU only.
    #[inline(always)]
    pub fn address(self) -> u32 {
        self.addr
    }
}

/// Debug builds: the message of a `Shared::from_generic` whose pointer is not in this block's
/// shared memory (`cvta.to.shared` of it would be another location, silently).
const NOT_SHARED: &core::ffi::CStr =
    c"ptx-sync: Shared::from_generic: the pointer is not in this block's shared memory\n";

/// `cvta.to.shared.u64`, truncated to the 32-bit `.shared` address; debug builds first test
/// the pointer with `isspacep.shared::cta`.
#[inline(always)]
pub(crate) fn from_generic(p: *mut u8) -> Addr {
    if cfg!(debug_assertions)
        && !super::address_space::in_space(p, super::address_space::SpaceKind::SharedCta)
    {
        crate::debug::trap(NOT_SHARED);
    }
    let a: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        // `readonly` rather than `nomem`: the operand is a pointer (it is only converted).
        core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p,
                         options(nostack, readonly, pure))
    };
    a as u32
}

/// `n` `T`s further on, in the 32-bit window.
#[inline(always)]
pub(crate) fn add<T>(addr: Addr, n: usize) -> Addr {
    addr.wrapping_add((n * core::mem::size_of::<T>()) as u32)
}

/// `cvta.shared.u64`.
#[inline(always)]
pub(crate) fn generic(addr: Addr) -> *mut u8 {
    let p: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("cvt.u64.u32 {p}, {a};\n\tcvta.shared.u64 {p}, {p};",
                         p = out(reg64) p, a = in(reg32) addr,
                         options(nostack, nomem, pure))
    };
    p as *mut u8
}

/// The words `ld/st.shared.bN` move, with their register class.
pub(crate) trait Word: Sized {
    /// # Safety
    /// `Shared::read`'s contract.
    unsafe fn read(addr: Addr) -> Self;
    /// # Safety
    /// `Shared::write`'s contract.
    unsafe fn write(addr: Addr, v: Self);
}

macro_rules! word {
    ($($t:ty, $bits:literal, $reg:ident);* $(;)?) => {$(
        impl Word for $t {
            #[inline(always)]
            unsafe fn read(addr: Addr) -> $t {
                let v: $t;
                // SAFETY: the caller's contract; `readonly`: reads memory, writes none, so
                // it is not moved across a barrier or atomic (those are memory clobbers).
                unsafe {
                    core::arch::asm!(concat!("ld.shared.b", $bits, " {v}, [{a}];"),
                                     v = out($reg) v, a = in(reg32) addr,
                                     options(nostack, readonly))
                };
                v
            }

            #[inline(always)]
            unsafe fn write(addr: Addr, v: $t) {
                // SAFETY: the caller's contract.
                unsafe {
                    core::arch::asm!(concat!("st.shared.b", $bits, " [{a}], {v};"),
                                     v = in($reg) v, a = in(reg32) addr,
                                     options(nostack))
                };
            }
        }
    )*};
}

word!(
    u32, "32", reg32;
    i32, "32", reg32;
    f32, "32", reg32;
    u64, "64", reg64;
    i64, "64", reg64;
    f64, "64", reg64;
);

/// `ld.shared.bN`.
///
/// # Safety
/// `Shared::read`'s contract.
#[inline(always)]
pub(crate) unsafe fn read<T: Word>(addr: Addr) -> T {
    // SAFETY: the caller's contract.
    unsafe { T::read(addr) }
}

/// `st.shared.bN`.
///
/// # Safety
/// `Shared::write`'s contract.
#[inline(always)]
pub(crate) unsafe fn write<T: Word>(addr: Addr, v: T) {
    // SAFETY: the caller's contract.
    unsafe { T::write(addr, v) }
}

/// A `shared!` variable's handle: `mov.u32` of its symbol.
#[inline(always)]
pub(crate) fn variable<K: Symbol>() -> Shared<K::Target> {
    Shared::at_address(K::address())
}
