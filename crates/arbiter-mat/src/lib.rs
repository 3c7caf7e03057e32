//! arbiter's card-reader mat, host side.
//!
//! [`host`] drives a mat over its serial port ([`host::MatHost`] is the
//! protocol state machine, free of I/O; [`host::spawn`] runs it on a thread
//! as a live input). [`tags`] maps each card's tag to its card, and
//! [`register`] learns a deck's tags one card at a time. The wire protocol
//! itself is the `firmware-protocol` crate, shared with the mat's firmware.
//!
//! With the `simulator` feature, [`plan`] turns a table script into what a
//! mat would sense and [`sim`] plays it over a pseudo-terminal, wire faults
//! included: the mat's tests, and `arbiter mat simulate`.

pub mod host;
pub mod lights;
pub mod register;
pub mod tags;

#[cfg(any(test, feature = "simulator"))]
pub mod plan;
#[cfg(any(test, feature = "simulator"))]
pub mod sim;
