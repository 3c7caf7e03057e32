//! Any byte stream through the decoders of both directions: no panic, no
//! memory but the decoder's fixed buffer (the crate has no allocator to
//! use), byte-at-a-time and slice feeding agree wherever the stream is
//! split, and every frame accepted re-encodes to a frame that decodes to the
//! same thing.
#![no_main]

use firmware_protocol::{
    Decoder, HostMessage, MAX_ENCODED_LEN, MAX_FRAME_LEN, MatMessage, Message, decode, encode,
};
use libfuzzer_sys::fuzz_target;

fn check<M: Message + Clone + PartialEq + core::fmt::Debug, const N: usize>(data: &[u8]) {
    let mut by_byte: Decoder<M, N> = Decoder::new();
    let pushed: Vec<_> = data.iter().filter_map(|&b| by_byte.push(b)).collect();

    let split = data.first().map_or(0, |&b| usize::from(b)) % (data.len() + 1);
    let (a, b) = data.split_at(split);
    let mut by_slice: Decoder<M, N> = Decoder::new();
    let mut fed: Vec<_> = by_slice.feed(a).collect();
    fed.extend(by_slice.feed(b));
    assert_eq!(pushed, fed);
    assert_eq!(by_byte.is_idle(), by_slice.is_idle());

    for frame in pushed.into_iter().flatten() {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let n = encode(&frame, &mut buf).expect("a decoded frame re-encodes");
        assert_eq!(decode::<M>(&buf[..n]), Ok(frame));
    }

    // The one-frame decoder on the whole input: never panics.
    let _ = decode::<M>(data);
}

fuzz_target!(|data: &[u8]| {
    check::<MatMessage, MAX_ENCODED_LEN>(data);
    check::<HostMessage, MAX_ENCODED_LEN>(data);
    // A small buffer exercises the oversized path.
    check::<MatMessage, 16>(data);
});
