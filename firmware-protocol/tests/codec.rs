//! Round trips of every message, corruption detection and recovery,
//! garbage streams, oversized frames, buffer sizes.

mod common;

use common::{host_vectors, mat_vectors, unhex};
use firmware_protocol::{
    Blink, CellIndex, CellState, CellStates, Colour, DecodeError, Decoder, EncodeError, ErrorKind,
    Face, Frame, Geometry, HostDecoder, HostMessage, LedEntries, LedEntry, MAX_FRAME_LEN,
    MAX_LED_ENTRIES, MAX_SCAN_CELLS, MAX_SCAN_STATE_BYTES, MatDecoder, MatMessage,
    PROTOCOL_VERSION, TagId, decode, encode,
};
use proptest::prelude::*;

fn cell() -> impl Strategy<Value = CellIndex> {
    (any::<u8>(), any::<u8>()).prop_map(|(col, row)| CellIndex::new(col, row))
}

fn state() -> impl Strategy<Value = CellState> {
    prop_oneof![
        Just(CellState::Empty),
        Just(CellState::Unreadable),
        (any::<u64>(), any::<bool>()).prop_map(|(tag, up)| CellState::Card {
            tag: TagId(tag),
            face: if up { Face::Up } else { Face::Down },
        }),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| CellState::Pair {
            tags: [TagId(a), TagId(b)],
        }),
    ]
}

/// As many of `states` as one `ScanCells` frame holds.
fn fitting(mut states: Vec<CellState>) -> Vec<CellState> {
    while states.iter().map(CellState::wire_len).sum::<usize>() > MAX_SCAN_STATE_BYTES {
        states.pop();
    }
    states
}

fn mat_message() -> impl Strategy<Value = MatMessage> {
    let kind = prop_oneof![
        Just(ErrorKind::SensorFault),
        Just(ErrorKind::TwoTags),
        Just(ErrorKind::BufferOverrun),
        Just(ErrorKind::HostFrameLost),
        Just(ErrorKind::BadRequest),
    ];
    prop_oneof![
        (
            any::<[u8; 3]>(),
            1..=u8::MAX,
            1..=u8::MAX,
            any::<u16>(),
            any::<u16>(),
            any::<bool>()
        )
            .prop_map(|(firmware, cols, rows, px, py, leds)| MatMessage::Hello {
                protocol: PROTOCOL_VERSION,
                firmware,
                geometry: Geometry {
                    cols,
                    rows,
                    pitch_x_mm: px,
                    pitch_y_mm: py,
                },
                leds,
            }),
        (any::<u16>(), any::<u16>())
            .prop_map(|(scan_id, cells)| MatMessage::ScanBegin { scan_id, cells }),
        (
            any::<u16>(),
            any::<u16>(),
            prop::collection::vec(state(), 0..=MAX_SCAN_CELLS)
        )
            .prop_map(|(scan_id, first, states)| MatMessage::ScanCells {
                scan_id,
                first,
                states: CellStates::from_slice(&fitting(states)).unwrap(),
            }),
        any::<u16>().prop_map(|scan_id| MatMessage::ScanEnd { scan_id }),
        (cell(), state()).prop_map(|(cell, state)| MatMessage::CellChange { cell, state }),
        any::<u32>().prop_map(|uptime_ms| MatMessage::Heartbeat { uptime_ms }),
        (kind, prop::option::of(cell()), any::<u16>())
            .prop_map(|(kind, cell, detail)| MatMessage::Error { kind, cell, detail }),
        any::<u32>().prop_map(|nonce| MatMessage::Pong { nonce }),
    ]
}

fn host_message() -> impl Strategy<Value = HostMessage> {
    let led = (
        cell(),
        any::<[u8; 3]>(),
        prop_oneof![Just(Blink::Steady), Just(Blink::Slow), Just(Blink::Fast)],
    )
        .prop_map(|(cell, [r, g, b], blink)| LedEntry {
            cell,
            colour: Colour::rgb(r, g, b),
            blink,
        });
    prop_oneof![
        Just(HostMessage::Hello {
            protocol: PROTOCOL_VERSION
        }),
        Just(HostMessage::RequestScan),
        prop::collection::vec(led, 0..=MAX_LED_ENTRIES).prop_map(|leds| HostMessage::SetLeds {
            leds: LedEntries::from_slice(&leds).unwrap()
        }),
        Just(HostMessage::ClearLeds),
        any::<u32>().prop_map(|nonce| HostMessage::Ping { nonce }),
    ]
}

fn framed<M: firmware_protocol::Message>(frame: &Frame<M>) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME_LEN];
    let n = encode(frame, &mut buf).unwrap();
    buf[..n].to_vec()
}

proptest! {
    #[test]
    fn every_mat_message_round_trips(seq in any::<u16>(), message in mat_message()) {
        let frame = Frame::new(seq, message);
        let bytes = framed(&frame);
        prop_assert!(bytes.len() <= MAX_FRAME_LEN);
        prop_assert_eq!(bytes.last(), Some(&0));
        prop_assert!(!bytes[..bytes.len() - 1].contains(&0));
        prop_assert_eq!(decode::<MatMessage>(&bytes), Ok(frame.clone()));
        let got: Vec<_> = MatDecoder::new().feed(&bytes).collect();
        prop_assert_eq!(got, vec![Ok(frame)]);
    }

    #[test]
    fn every_host_message_round_trips(seq in any::<u16>(), message in host_message()) {
        let frame = Frame::new(seq, message);
        let bytes = framed(&frame);
        prop_assert!(bytes.len() <= MAX_FRAME_LEN);
        prop_assert_eq!(decode::<HostMessage>(&bytes), Ok(frame.clone()));
        let mut decoder = HostDecoder::new();
        let got: Vec<_> = bytes.iter().filter_map(|&b| decoder.push(b)).collect();
        prop_assert_eq!(got, vec![Ok(frame)]);
    }

    /// Any bytes: no panic, `push` and `feed` agree however the input is
    /// split, and a valid frame after a 0x00 always decodes.
    #[test]
    fn garbage_never_panics_and_the_decoder_recovers(
        garbage in prop::collection::vec(any::<u8>(), 0..600),
        split in any::<prop::sample::Index>(),
    ) {
        let mut by_byte = MatDecoder::new();
        let pushed: Vec<_> = garbage.iter().filter_map(|&b| by_byte.push(b)).collect();
        let mut by_slice = MatDecoder::new();
        let (a, b) = garbage.split_at(split.index(garbage.len() + 1));
        let mut fed: Vec<_> = by_slice.feed(a).collect();
        fed.extend(by_slice.feed(b));
        prop_assert_eq!(&pushed, &fed);

        let (_, frame, bytes) = mat_vectors().remove(6);
        let mut tail = vec![0];
        tail.extend(unhex(bytes));
        let got: Vec<_> = by_byte.feed(&tail).collect();
        prop_assert_eq!(got.last(), Some(&Ok(frame)));
        prop_assert!(by_byte.is_idle());

        let mut host = HostDecoder::new();
        let _ = host.feed(&garbage).count();
    }

    /// Changing any one byte of a frame (any way) is always caught, and the
    /// next frame still decodes.
    #[test]
    fn any_corrupted_byte_is_caught(vector in 0..10usize, pos in any::<prop::sample::Index>(), xor in 1..=u8::MAX) {
        corrupt_and_check(vector, pos.index(usize::MAX), xor);
    }
}

fn corrupt_and_check(vector: usize, pos: usize, xor: u8) {
    let vectors = mat_vectors();
    let (_, _, bytes) = &vectors[vector];
    let (_, next, next_bytes) = &vectors[(vector + 1) % vectors.len()];
    let mut stream = unhex(bytes);
    // Not the delimiter: a changed delimiter merges two frames, which is
    // caught all the same but checked by the exhaustive test below.
    let pos = pos % (stream.len() - 1);
    stream[pos] ^= xor;
    stream.extend(unhex(next_bytes));
    let got: Vec<_> = MatDecoder::new().feed(&stream).collect();
    let (last, before) = got.split_last().unwrap();
    assert_eq!(
        last,
        &Ok(next.clone()),
        "vector {vector} byte {pos} ^ {xor:#04x}"
    );
    assert!(
        before.iter().all(Result::is_err),
        "vector {vector} byte {pos} ^ {xor:#04x}: {before:?}"
    );
    assert!(!before.is_empty());
}

#[test]
fn every_single_byte_corruption_of_every_vector_is_caught() {
    for vector in 0..mat_vectors().len() {
        let len = unhex(mat_vectors()[vector].2).len();
        for pos in 0..len - 1 {
            for xor in 1..=u8::MAX {
                corrupt_and_check(vector, pos, xor);
            }
        }
    }
}

#[test]
fn a_lost_delimiter_costs_two_frames_and_no_more() {
    let vectors = mat_vectors();
    let mut stream = Vec::new();
    for (_, _, bytes) in &vectors[..3] {
        stream.extend(unhex(bytes));
    }
    let first_end = unhex(vectors[0].2).len() - 1;
    stream[first_end] = 0x42;
    let got: Vec<_> = MatDecoder::new().feed(&stream).collect();
    assert!(got[0].is_err(), "{got:?}");
    assert_eq!(got[1..], [Ok(vectors[2].1.clone())]);
}

#[test]
fn an_oversized_frame_is_rejected_without_overrun_and_the_next_decodes() {
    let (_, frame, bytes) = mat_vectors().remove(1);
    let mut stream = vec![0x55; 10_000];
    stream.push(0);
    stream.extend(unhex(bytes));
    let mut decoder = MatDecoder::new();
    let got: Vec<_> = decoder.feed(&stream).collect();
    assert_eq!(got, [Err(DecodeError::Oversized), Ok(frame.clone())]);

    // One byte too many for a small buffer, byte by byte.
    let mut small: Decoder<MatMessage, 12> = Decoder::new();
    let too_long = unhex(mat_vectors()[2].2);
    assert!(too_long.len() > 13);
    let got: Vec<_> = too_long.iter().filter_map(|&b| small.push(b)).collect();
    assert_eq!(got, [Err(DecodeError::Oversized)]);
    // A frame of exactly 12 COBS bytes fits.
    let fits = unhex(bytes);
    assert_eq!(fits.len(), 13);
    let got: Vec<_> = small.feed(&fits).collect();
    assert_eq!(got, [Ok(frame)]);

    // A zero-sized decoder rejects everything, and never panics.
    let mut none: Decoder<MatMessage, 0> = Decoder::new();
    assert_eq!(
        none.feed(&fits).collect::<Vec<_>>(),
        [Err(DecodeError::Oversized)]
    );

    assert_eq!(
        decode::<MatMessage>(&[0x55; MAX_FRAME_LEN]),
        Err(DecodeError::Oversized)
    );
}

#[test]
fn empty_frames_are_skipped() {
    let (_, frame, bytes) = mat_vectors().remove(3);
    let mut stream = vec![0, 0, 0];
    stream.extend(unhex(bytes));
    stream.extend([0, 0]);
    let got: Vec<_> = MatDecoder::new().feed(&stream).collect();
    assert_eq!(got, [Ok(frame)]);
}

#[test]
fn the_largest_frames_fit_max_frame_len() {
    let card = CellState::Card {
        tag: TagId(u64::MAX),
        face: Face::Down,
    };
    let scan = Frame::new(
        u16::MAX,
        MatMessage::ScanCells {
            scan_id: u16::MAX,
            first: u16::MAX,
            states: CellStates::from_slice(&[card; MAX_SCAN_CELLS]).unwrap(),
        },
    );
    assert_eq!(framed(&scan).len(), MAX_FRAME_LEN);
    let led = LedEntry {
        cell: CellIndex::new(255, 255),
        colour: Colour::rgb(255, 255, 255),
        blink: Blink::Fast,
    };
    let leds = Frame::new(
        u16::MAX,
        HostMessage::SetLeds {
            leds: LedEntries::from_slice(&[led; MAX_LED_ENTRIES]).unwrap(),
        },
    );
    assert!(framed(&leds).len() <= MAX_FRAME_LEN);
    assert!(CellStates::from_slice(&[card; MAX_SCAN_CELLS + 1]).is_err());
    // Pairs take 17 bytes: eight fit a frame with one more card, nine do not.
    let pair = CellState::Pair {
        tags: [TagId(u64::MAX); 2],
    };
    let mut states = [pair; 8].to_vec();
    states.push(CellState::Unreadable);
    let chunk = |states: &[CellState]| {
        Frame::new(
            u16::MAX,
            MatMessage::ScanCells {
                scan_id: u16::MAX,
                first: u16::MAX,
                states: CellStates::from_slice(states).unwrap(),
            },
        )
    };
    assert!(framed(&chunk(&states)).len() <= MAX_FRAME_LEN);
    states.push(CellState::Unreadable);
    states.push(pair);
    let mut buf = [0u8; MAX_FRAME_LEN];
    assert_eq!(
        encode(&chunk(&states), &mut buf),
        Err(EncodeError::TooManyStateBytes { len: 155 })
    );
    let mut full = LedEntries::from_slice(&[led; MAX_LED_ENTRIES]).unwrap();
    assert!(full.is_full());
    assert!(full.push(led).is_err());
}

#[test]
fn encoding_into_a_short_buffer_fails_cleanly() {
    let (_, frame, bytes) = mat_vectors().remove(6);
    let len = unhex(bytes).len();
    let mut buf = vec![0xAA; len - 1];
    assert_eq!(
        encode(&frame, &mut buf),
        Err(EncodeError::BufferTooSmall { needed: len })
    );
    let mut buf = vec![0xAA; len];
    assert_eq!(encode(&frame, &mut buf), Ok(len));
}

#[test]
fn counts_above_capacity_are_bad_values() {
    // ScanCells claiming 17 states; SetLeds claiming 25 entries.
    let mut payload = vec![0x03, 0, 0, 1, 0, 0, 0, 17];
    payload.extend([0; 17]);
    assert_eq!(
        decode_payload::<MatMessage>(&payload),
        Err(DecodeError::BadValue {
            ty: 0x03,
            field: "count"
        })
    );
    // (Checked before the entries: a body that long would not fit a frame.)
    let mut payload = vec![0x83, 0, 0, 25];
    payload.extend([0; 6]);
    assert_eq!(
        decode_payload::<HostMessage>(&payload),
        Err(DecodeError::BadValue {
            ty: 0x83,
            field: "count"
        })
    );
    // A Hello of a later protocol version is reported as such, however long.
    assert_eq!(
        decode_payload::<HostMessage>(&[0x81, 0, 0, 3, 9, 9, 9, 9]),
        Err(DecodeError::UnsupportedProtocol { protocol: 3 })
    );
    // A Hello with no cells.
    assert_eq!(
        decode_payload::<MatMessage>(&[0x01, 0, 0, 1, 1, 0, 0, 0, 12, 70, 0, 95, 0, 1]),
        Err(DecodeError::BadValue {
            ty: 0x01,
            field: "geometry"
        })
    );
    // An error with a has-cell byte of 2; a blink of 3.
    assert_eq!(
        decode_payload::<MatMessage>(&[0x07, 0, 0, 1, 2, 0, 0, 0, 0]),
        Err(DecodeError::BadValue {
            ty: 0x07,
            field: "has cell"
        })
    );
    assert_eq!(
        decode_payload::<HostMessage>(&[0x83, 0, 0, 1, 0, 0, 1, 2, 3, 3]),
        Err(DecodeError::BadValue {
            ty: 0x83,
            field: "blink"
        })
    );
}

/// Frames a raw payload (CRC added) and decodes it.
fn decode_payload<M: firmware_protocol::Message>(payload: &[u8]) -> Result<Frame<M>, DecodeError> {
    let mut payload = payload.to_vec();
    payload.extend(firmware_protocol::crc32c(&payload).to_le_bytes());
    let mut encoded = vec![0; payload.len() * 2 + 2];
    let n = cobs_encode(&payload, &mut encoded);
    decode(&encoded[..n])
}

/// A plain COBS encoder, independent of the crate's, to build test frames.
fn cobs_encode(data: &[u8], out: &mut [u8]) -> usize {
    let mut o = 0;
    for block in data.split(|&b| b == 0) {
        // Blocks here are short (< 254), so each is one code byte + data.
        out[o] = block.len() as u8 + 1;
        out[o + 1..o + 1 + block.len()].copy_from_slice(block);
        o += 1 + block.len();
    }
    o
}

#[test]
fn the_crc_is_crc32c() {
    assert_eq!(firmware_protocol::crc32c(b"123456789"), 0xe306_9283);
    // The residue: a payload with its CRC appended always checks to this.
    for (_, _, bytes) in mat_vectors() {
        let enc = unhex(bytes);
        let mut payload = [0u8; MAX_FRAME_LEN];
        payload[..enc.len() - 1].copy_from_slice(&enc[..enc.len() - 1]);
        let n = cobs_decode(&enc[..enc.len() - 1], &mut payload);
        assert_eq!(firmware_protocol::crc32c(&payload[..n]), 0x4867_4bc7);
    }
}

fn cobs_decode(enc: &[u8], out: &mut [u8]) -> usize {
    let (mut i, mut o) = (0, 0);
    while i < enc.len() {
        let code = enc[i] as usize;
        out[o..o + code - 1].copy_from_slice(&enc[i + 1..i + code]);
        i += code;
        o += code - 1;
        if code != 0xff && i < enc.len() {
            out[o] = 0;
            o += 1;
        }
    }
    o
}

#[test]
fn geometry_maps_cells_to_scan_positions() {
    let g = common::GEOMETRY;
    assert_eq!(g.cells(), 144);
    assert_eq!(g.index_of(CellIndex::new(3, 4)), Some(51));
    assert_eq!(g.cell_at(51), Some(CellIndex::new(3, 4)));
    assert_eq!(g.cell_at(144), None);
    assert_eq!(g.index_of(CellIndex::new(12, 0)), None);
    for i in 0..g.cells() {
        assert_eq!(g.index_of(g.cell_at(i).unwrap()), Some(i));
    }
}

#[test]
fn decoders_are_separate_per_direction() {
    let bytes = unhex(host_vectors()[1].2);
    assert_eq!(
        decode::<MatMessage>(&bytes),
        Err(DecodeError::UnknownType(0x82))
    );
}
