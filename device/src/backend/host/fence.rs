//! Fences on the host: every scope is the whole system, so each is `core`'s (or loom's) fence.
// `S` names the GPU scope; the host has one.
#![allow(clippy::extra_unused_type_parameters)]

use crate::scope::Scope;
use core::sync::atomic::Ordering;

pub(crate) fn sc<S: Scope>() {
    crate::loom::atomic::fence(Ordering::SeqCst);
}

pub(crate) fn acq_rel<S: Scope>() {
    crate::loom::atomic::fence(Ordering::AcqRel);
}

pub(crate) fn compiler(order: Ordering) {
    core::sync::atomic::compiler_fence(order);
}
