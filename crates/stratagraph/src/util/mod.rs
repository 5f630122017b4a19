//! Small building blocks shared by the engine's modules.

pub(crate) mod bucket;
pub(crate) mod dir_lock;
pub mod faults;
pub(crate) mod files;
#[cfg(test)]
pub(crate) mod fuzz;
pub(crate) mod huge;
pub(crate) mod kept;
pub(crate) mod le;
pub(crate) mod polling;
pub(crate) mod prefetch;
pub(crate) mod search;
pub(crate) mod segmented;
