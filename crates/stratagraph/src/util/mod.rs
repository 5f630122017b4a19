//! Small building blocks shared by the engine's modules.

pub(crate) mod bucket;
pub(crate) mod segmented;
