//! A `Global<T>` handle's address on the host: the pointer itself.

pub(crate) struct GlobalAddr<T> {
    ptr: *mut T,
}

impl<T> Clone for GlobalAddr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GlobalAddr<T> {}

impl<T> GlobalAddr<T> {
    /// # Safety
    /// None on the host: the pointer is only stored.
    #[inline(always)]
    pub(crate) unsafe fn from_generic(p: *mut T) -> GlobalAddr<T> {
        GlobalAddr { ptr: p }
    }

    /// As `pointer::wrapping_add`.
    #[inline(always)]
    pub(crate) fn add(self, n: usize) -> GlobalAddr<T> {
        GlobalAddr {
            ptr: self.ptr.wrapping_add(n),
        }
    }

    #[inline(always)]
    pub(crate) fn cast<U>(self) -> GlobalAddr<U> {
        GlobalAddr {
            ptr: self.ptr.cast(),
        }
    }

    #[inline(always)]
    pub(crate) fn generic(self) -> *mut T {
        self.ptr
    }
}
