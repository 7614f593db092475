//! The warp reductions on the host: no instruction does one, so the trait's default (the
//! shuffle tree over the host's warp) stays.

/// Nothing: the method keeps the trait's default body.
macro_rules! redux_method {
    ($name:ident, $t:ty, $insn:literal) => {};
}
pub(crate) use redux_method;
