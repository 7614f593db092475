//! `AtomicBool<S>`: `core::sync::atomic::AtomicBool`'s API over one `u32` word.
//!
//! Why a `u32` and not core's one byte: PTX's `atom` and `red` act on 32-, 64- and 128-bit
//! words (and a 16-bit `cas`), never on one byte. A 1-byte flag would need every read-modify-
//! write to be a compare-exchange loop on the 4-byte word that contains it, racing with its
//! neighbours' bytes. With a word of its own, every operation is one instruction: the word is
//! 0 (false) or 1 (true), and the boolean operations are the 32-bit bitwise ones, which keep it
//! 0 or 1.

use super::update::update_api;
use super::Atomic;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// A `bool` whose operations synchronize at scope `S`: the API of
/// `core::sync::atomic::AtomicBool` (and of `cuda::atomic<bool, Scope>`).
///
/// **4 bytes, not 1** (unlike core's `AtomicBool`): one `u32` word holding 0 or 1. PTX's `atom`
/// and `red` act on 32-, 64- and 128-bit words (and a 16-bit `cas`), never on one byte, so a
/// 1-byte flag would need a compare-exchange loop on its containing word for every
/// read-modify-write; with a word of its own every operation is one instruction.
/// [`from_ptr`](Self::from_ptr) takes a `*mut u32`; host code writes 0 or 1 there (zeroed
/// memory is `false`).
///
/// The PTX is the `u32` instructions of [`Atomic`]'s table: `load` is `ld.<sem>.S.b32` and a
/// compare with 0, `store` `st.<sem>.S.b32` of 0 or 1, `swap` `atom.<sem>.S.exch.b32`,
/// `compare_exchange` `atom.<sem>.S.cas.b32`, `fetch_and/or/xor` `atom.<sem>.S.and/or/xor.b32`,
/// `fetch_not` `atom.<sem>.S.xor.b32` of 1; `fetch_nand` is one of `xor` or `exch` (see there).
///
/// ```
/// use ptx_sync::{AtomicBool, Gpu, Ordering::*};
///
/// static READY: AtomicBool<Gpu> = AtomicBool::new(false);
/// assert!(!READY.swap(true, AcqRel)); // atom.acq_rel.gpu.exch.b32
/// assert!(READY.load(Acquire));
/// assert_eq!(core::mem::size_of::<AtomicBool<Gpu>>(), 4);
/// ```
#[repr(transparent)]
pub struct AtomicBool<S: Scope> {
    word: Atomic<u32, S>,
}

/// `Debug` as core's `AtomicBool`: the value, read with a `Relaxed` load.
impl<S: Scope> core::fmt::Debug for AtomicBool<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.load(Ordering::Relaxed), f)
    }
}

/// The word of a `bool`.
#[inline(always)]
const fn word(b: bool) -> u32 {
    b as u32
}

impl<S: Scope> AtomicBool<S> {
    const_fn! {
    /// A new atomic holding `value`.
    #[inline(always)]
    pub fn new(value: bool) -> Self {
        AtomicBool {
            word: Atomic::new(word(value)),
        }
    }
    }

    cfg_not_loom! {
    /// Views the `u32` word at `ptr` (0: false, 1: true) as an atomic `bool`.
    ///
    /// ```
    /// use ptx_sync::{AtomicBool, Sys, Ordering::*};
    /// let mut word = 0u32;
    /// let b = unsafe { AtomicBool::<Sys>::from_ptr(&mut word) };
    /// assert!(!b.fetch_or(true, Release));
    /// assert_eq!(word, 1);
    /// ```
    ///
    /// # Safety
    /// As [`Atomic::from_ptr`] for a `u32`, and the word holds 0 or 1 whenever this view
    /// reads it (other values would make `fetch_and/or/xor` leave bits that are neither).
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when `ptr` is not 4-byte
    /// aligned; release builds do not check.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `repr(transparent)` over `Atomic<u32, S>`, itself transparent over a `u32`;
        // the caller guarantees validity and alignment.
        unsafe { &*(Atomic::<u32, S>::from_ptr(ptr) as *const Atomic<u32, S>).cast::<Self>() }
    }

    /// The address of the word (generic address space on the GPU).
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut u32 {
        self.word.as_ptr()
    }
    }

    /// Loads the value. Orders: Relaxed, Acquire, SeqCst (Release and AcqRel panic).
    ///
    /// PTX: `ld.<sem>.<scope>.b32`; SeqCst adds a leading `fence.sc.<scope>`.
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> bool {
        self.word.load(order) != 0
    }

    /// Stores `val`. Orders: Relaxed, Release, SeqCst (Acquire and AcqRel panic).
    ///
    /// PTX: `st.<sem>.<scope>.b32` of 0 or 1; SeqCst is `fence.sc.<scope>` + `st.relaxed`.
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, val: bool, order: Ordering) {
        self.word.store(word(val), order)
    }

    /// Stores `val` and returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.exch.b32`.
    #[inline(always)]
    pub fn swap(&self, val: bool, order: Ordering) -> bool {
        self.word.swap(word(val), order) != 0
    }

    /// Stores `new` if the value is `current`; `Ok(previous)` if it did, `Err(actual)` if not.
    /// Orders as for the integer [`Atomic::compare_exchange`] (one merged `.sem`).
    ///
    /// PTX: `atom.<sem>.<scope>.cas.b32`.
    ///
    /// ```
    /// use ptx_sync::{AtomicBool, Cta, Ordering::*};
    /// let b = AtomicBool::<Cta>::new(false);
    /// assert_eq!(b.compare_exchange(false, true, AcqRel, Acquire), Ok(false));
    /// assert_eq!(b.compare_exchange(false, true, AcqRel, Acquire), Err(true));
    /// ```
    ///
    /// # Panics
    ///
    /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the thread
    /// prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        match self
            .word
            .compare_exchange(word(current), word(new), success, failure)
        {
            Ok(v) => Ok(v != 0),
            Err(v) => Err(v != 0),
        }
    }

    update_api!(bool, update_example = "```\nuse ptx_sync::{AtomicBool, Gpu, Ordering::*};\nlet b = AtomicBool::<Gpu>::new(false);\nassert!(!b.update(AcqRel, Acquire, |x| !x));\nassert!(b.load(Relaxed));\n```");

    /// Applies `f` in a compare-exchange loop until it succeeds or `f` returns `None`, like
    /// core's `fetch_update`. `fetch_order` cannot be Release or AcqRel.
    ///
    /// PTX: `ld.<fetch_order>.<scope>.b32`, then `atom.<sem>.<scope>.cas.b32` per attempt.
    ///
    /// # Panics
    ///
    /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn fetch_update<F>(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: F,
    ) -> Result<bool, bool>
    where
        F: FnMut(bool) -> Option<bool>,
    {
        match self
            .word
            .fetch_update(set_order, fetch_order, |w| f(w != 0).map(word))
        {
            Ok(v) => Ok(v != 0),
            Err(v) => Err(v != 0),
        }
    }

    /// Logical AND with `val`; returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.and.b32`.
    #[inline(always)]
    pub fn fetch_and(&self, val: bool, order: Ordering) -> bool {
        self.word.fetch_and(word(val), order) != 0
    }

    /// Logical OR with `val`; returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.or.b32`.
    #[inline(always)]
    pub fn fetch_or(&self, val: bool, order: Ordering) -> bool {
        self.word.fetch_or(word(val), order) != 0
    }

    /// Logical XOR with `val`; returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.xor.b32`.
    #[inline(always)]
    pub fn fetch_xor(&self, val: bool, order: Ordering) -> bool {
        self.word.fetch_xor(word(val), order) != 0
    }

    /// Logical NAND with `val` (stores `!(old && val)`); returns the previous value. Every
    /// order.
    ///
    /// One instruction, chosen by `val` as core does: NAND with `true` is NOT
    /// (`atom.<sem>.<scope>.xor.b32` of 1), NAND with `false` is `true`
    /// (`atom.<sem>.<scope>.exch.b32` of 1). No compare-exchange loop, unlike the integers'
    /// `fetch_nand`.
    ///
    /// ```
    /// use ptx_sync::{AtomicBool, Gpu, Ordering::*};
    /// let b = AtomicBool::<Gpu>::new(true);
    /// assert!(b.fetch_nand(true, AcqRel));
    /// assert!(!b.load(Relaxed));
    /// ```
    #[inline(always)]
    pub fn fetch_nand(&self, val: bool, order: Ordering) -> bool {
        if val {
            self.fetch_xor(true, order)
        } else {
            self.swap(true, order)
        }
    }

    /// Logical NOT; returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.xor.b32` of 1.
    #[inline(always)]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}

impl<S: Scope> Default for AtomicBool<S> {
    /// `false`.
    fn default() -> Self {
        Self::new(false)
    }
}
