//! Which state-space window a generic address falls in (`isspacep`), for the debug checks of
//! the modules that need an address of one space: a primitive in local memory, where the PTX
//! ISA leaves atomics undefined; a `Shared` or `Global` handle made from a pointer of another
//! space, where an explicit-space access is undefined; a bulk copy's operands. A leaf, so
//! `shared` and `atomic::space` both take it from below. GPU only: the host backend has one
//! address space.

/// The windows [`in_space`] tests.
#[derive(Clone, Copy)]
pub(crate) enum SpaceKind {
    SharedCta,
    Global,
    Local,
}

/// Whether a generic address is in `space` (`isspacep.shared::cta` / `.global` / `.local`):
/// the one address test of the crate's debug checks.
#[inline(always)]
pub(crate) fn in_space(p: *const u8, space: SpaceKind) -> bool {
    let r: u32;
    // SAFETY: tests an address; reads no memory.
    unsafe {
        match space {
            SpaceKind::SharedCta => core::arch::asm!(
                "{{ .reg .pred %p; isspacep.shared::cta %p, {a}; selp.u32 {r}, 1, 0, %p; }}",
                a = in(reg64) p as u64, r = out(reg32) r, options(pure, nomem, nostack)),
            SpaceKind::Global => core::arch::asm!(
                "{{ .reg .pred %p; isspacep.global %p, {a}; selp.u32 {r}, 1, 0, %p; }}",
                a = in(reg64) p as u64, r = out(reg32) r, options(pure, nomem, nostack)),
            SpaceKind::Local => core::arch::asm!(
                "{{ .reg .pred %p; isspacep.local %p, {a}; selp.u32 {r}, 1, 0, %p; }}",
                a = in(reg64) p as u64, r = out(reg32) r, options(pure, nomem, nostack)),
        }
    };
    r != 0
}
