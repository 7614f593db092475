//! `CachePadded<T>`: a `T` alone on its 128-byte line (crossbeam's `CachePadded`, sized for
//! the GPU's L2 line).
//!
//! Padding is the user's choice, not the primitive's: a table of 65,536 per-bucket locks wants
//! them compact, one heavily contended lock wants its neighbours elsewhere. Two uses:
//! - `CachePadded<Mutex<T>>`: no other object shares the lock's line (its pollers do not slow
//!   down unrelated data, and it is not slowed down by unrelated writes).
//! - `Mutex<CachePadded<T>>`: the protected data starts on the next line, so the holder's
//!   writes to it do not invalidate the line the waiters poll.

use core::ops::{Deref, DerefMut};

/// A `T` aligned to, and padded to a multiple of, 128 bytes (one L2 line on sm_70+).
///
/// ```
/// use ptx_sync::{CachePadded, Gpu, Mutex};
/// let m: Mutex<CachePadded<u32>, Gpu> = Mutex::new(CachePadded::new(0));
/// assert_eq!(Mutex::<CachePadded<u32>, Gpu>::DATA_OFFSET, 128);
/// **m.lock() += 1;
/// assert_eq!(core::mem::size_of::<CachePadded<u8>>(), 128);
/// ```
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
#[repr(C, align(128))]
pub struct CachePadded<T> {
    value: T,
}

impl<T> CachePadded<T> {
    /// Pads `value`.
    pub const fn new(value: T) -> Self {
        CachePadded { value }
    }

    /// The value, unpadded.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> Deref for CachePadded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for CachePadded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T> From<T> for CachePadded<T> {
    fn from(value: T) -> Self {
        CachePadded::new(value)
    }
}
