//! `in_space` and `SpaceKind` at the path their callers outside the backend still name; the
//! `isspacep` test itself is in `backend::address_space`.

pub(crate) use crate::backend::address_space::{in_space, SpaceKind};
