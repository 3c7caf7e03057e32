//! Inputs: each turns a device's signal (or a script, or keys) into
//! [`Observation`](crate::observation::Observation)s. The referee never sees
//! where they came from.

pub use arbiter_core::live;
pub use arbiter_mat::host as mat;
#[cfg(feature = "simulator")]
pub use arbiter_mat::plan as matplan;
#[cfg(feature = "simulator")]
pub use arbiter_mat::sim as matsim;
#[cfg(feature = "camera")]
pub use arbiter_vision::camera;
pub use arbiter_vision::frames;
pub use arbiter_vision::input as vision;
pub mod mock;
pub mod script;
