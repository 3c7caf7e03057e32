//! arbiter's camera: seeing the table in a frame.
//!
//! [`cards`] finds and straightens the cards of a frame, [`templates`]
//! names them against a learned deck, [`lattice`] and [`calibration`] put
//! them on cells, [`recognise`] turns a frame into a reading and [`watch`]
//! re-reads only what changed. [`frames`] settles a stream of frames into
//! the tables the referee judges; [`input`] opens a recording or a webcam
//! as a live input. [`print`] is the printable deck, corner codes included.
//!
//! The test tooling ([`scene`]: synthetic frames with known truth;
//! [`record`], [`fixtures`], [`accuracy`]) is compiled for this crate's own
//! tests and, with the `testkit` feature, for the workspace's.

pub mod calibration;
#[cfg(feature = "camera")]
pub mod camera;
pub mod cards;
pub mod coded;
pub mod codes;
pub mod finder;
pub mod frames;
mod grow;
pub mod input;
pub mod lattice;
pub mod network;
mod outline;
pub mod photo;
pub mod pipeline;
pub mod print;
pub mod recognise;
mod shapes;
pub mod templates;
pub mod watch;

#[cfg(any(test, feature = "testkit"))]
pub mod accuracy;
#[cfg(any(test, feature = "testkit"))]
pub mod fixtures;
#[cfg(any(test, feature = "testkit"))]
pub mod record;
#[cfg(any(test, feature = "testkit"))]
pub mod scene;
