//! Inputs: each turns a device's signal (or a script, or keys) into
//! [`Observation`](crate::observation::Observation)s. The referee never sees
//! where they came from.

pub use arbiter_core::live;
#[cfg(feature = "camera")]
pub use arbiter_vision::camera;
pub use arbiter_vision::frames;
pub use arbiter_vision::input as vision;
pub mod mat;
pub mod matplan;
pub mod matsim;
pub mod mock;
pub mod script;
