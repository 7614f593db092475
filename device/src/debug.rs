//! What a debug build reports when a primitive is misused: the message, then a stop (on the
//! GPU `vprintf` and `trap`, on the host a panic). Release builds emit none of it.

use crate::backend::check;
// The out-of-line body stays at the crate root (`crate::debug_trap`): its symbol's place in
// the crate orders the declarations of every kernel's PTX (`vprintf`'s among them), which the
// golden PTX keeps byte for byte.
pub(crate) use crate::debug_trap as trap;

/// In a debug build on the GPU, traps with `message` when `object` is in local memory (a
/// kernel's local variable): the PTX ISA leaves atomics on `.local` addresses undefined, and
/// no other thread can reach a thread's local memory anyway. `isspacep.local` is one
/// instruction; release builds emit nothing. libcu++ guards the same case.
#[inline(always)]
pub(crate) fn check_not_local<T: ?Sized>(object: &T, message: &'static core::ffi::CStr) {
    if cfg!(debug_assertions) && check::is_local(object as *const T as *const u8) {
        trap(message);
    }
}
