//! The physical deck: which tag each card carries (for the card-reader mat).
//! The printable deck and its recognition templates join here with the
//! camera.

pub use arbiter_vision::print;
pub mod register;
pub mod tags;
