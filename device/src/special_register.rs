//! `special_register!` at the path its callers outside the backend still name; the reader
//! itself is in `backend::special_register`.

pub(crate) use crate::backend::special_register::special_register;
