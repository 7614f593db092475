//! `compare_exchange_weak`, `try_update` and `update` of [`AtomicBool`](super::AtomicBool) and
//! [`AtomicPtr`](super::AtomicPtr): `core`'s names for operations those types already have,
//! stamped over the type's own `compare_exchange` and `fetch_update` (same PTX as those).
//! `Atomic<T, S>` has them once, generically, in `ops.rs`.

/// The three methods for an atomic holding `$t`; `update_example` is a doc example for `update`.
macro_rules! update_api {
    ($t:ty $(, update_example = $ex:expr)?) => {
        /// Same as [`compare_exchange`](Self::compare_exchange): PTX `atom.cas` never fails
        /// spuriously (it compares and swaps in one step at the memory, with no reservation
        /// that another access could break, unlike LL/SC machines), and the 8/16-bit word
        /// loops retry only when a neighbouring byte changed, so the weak form costs nothing
        /// extra. Provided so code written for `core` atomics ports unchanged.
        ///
        /// # Panics
        ///
        /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the
        /// thread prints the message and traps).
        #[inline(always)]
        #[track_caller]
        pub fn compare_exchange_weak(
            &self,
            current: $t,
            new: $t,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$t, $t> {
            self.compare_exchange(current, new, success, failure)
        }

        /// `core`'s `try_update`: the same as [`fetch_update`](Self::fetch_update) (same PTX).
        ///
        /// # Panics
        ///
        /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
        /// thread prints the message and traps).
        #[inline(always)]
        #[track_caller]
        pub fn try_update(
            &self,
            set_order: Ordering,
            fetch_order: Ordering,
            f: impl FnMut($t) -> Option<$t>,
        ) -> Result<$t, $t> {
            self.fetch_update(set_order, fetch_order, f)
        }

        /// `core`'s `update`: applies `f` in a compare-exchange loop until the update
        /// succeeds; returns the previous value. Orders and PTX as
        /// [`fetch_update`](Self::fetch_update) (`fetch_order` cannot be Release or AcqRel).
        ///
        $(#[doc = $ex])?
        ///
        /// # Panics
        ///
        /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
        /// thread prints the message and traps).
        #[inline(always)]
        #[track_caller]
        pub fn update(
            &self,
            set_order: Ordering,
            fetch_order: Ordering,
            mut f: impl FnMut($t) -> $t,
        ) -> $t {
            match self.fetch_update(set_order, fetch_order, |x| Some(f(x))) {
                Ok(v) | Err(v) => v,
            }
        }
    };
}
pub(crate) use update_api;

/// `compare_exchange_weak`, `try_update` and `update` of an [`AtomicAccess`](super::AtomicAccess)
/// impl, over its own `compare_exchange` and `fetch_update` (the bodies of the `Atomic<T, S>`
/// methods of the same names).
macro_rules! update_impls {
    ($t:ty) => {
        #[inline(always)]
        #[track_caller]
        fn compare_exchange_weak<S: Scope>(
            a: &Atomic<Self, S>,
            current: $t,
            new: $t,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$t, $t> {
            Self::compare_exchange(a, current, new, success, failure)
        }

        #[inline(always)]
        #[track_caller]
        fn try_update<S: Scope>(
            a: &Atomic<Self, S>,
            set_order: Ordering,
            fetch_order: Ordering,
            f: impl FnMut($t) -> Option<$t>,
        ) -> Result<$t, $t> {
            Self::fetch_update(a, set_order, fetch_order, f)
        }

        #[inline(always)]
        #[track_caller]
        fn update<S: Scope>(
            a: &Atomic<Self, S>,
            set_order: Ordering,
            fetch_order: Ordering,
            mut f: impl FnMut($t) -> $t,
        ) -> $t {
            match Self::fetch_update(a, set_order, fetch_order, |x| Some(f(x))) {
                Ok(v) | Err(v) => v,
            }
        }
    };
}
pub(crate) use update_impls;
