//! Decoder throughput over a realistic stream from a 12 × 12 mat: full
//! scans (two thirds of the cells hold a card) and runs of cell changes
//! with heartbeats, as the host's reader thread would receive them.
//!
//! `cargo bench -p firmware-protocol --bench decoder`

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use firmware_protocol::{
    CellState, CellStates, Face, Frame, Geometry, MAX_FRAME_LEN, MAX_SCAN_CELLS, MatDecoder,
    MatMessage, PROTOCOL_VERSION, TagId, encode,
};

fn main() {
    divan::main();
}

const GEOMETRY: Geometry = Geometry {
    cols: 12,
    rows: 12,
    pitch_x_mm: 70,
    pitch_y_mm: 95,
};

/// A deterministic card (or none) for cell `i` in round `round`.
fn state(i: u32, round: u32) -> CellState {
    let h = (i.wrapping_mul(2_654_435_761) ^ round.wrapping_mul(40_503)) >> 7;
    match h % 3 {
        0 => CellState::Empty,
        n => CellState::Card {
            tag: TagId(0x0004_a23b_4c5d_0000 | u64::from(h & 0xffff)),
            face: if n == 1 { Face::Up } else { Face::Down },
        },
    }
}

/// Bytes on the wire: a `Hello`, then `rounds` × (a full scan, 40 cell
/// changes, a heartbeat).
fn stream(rounds: u32) -> Vec<u8> {
    let mut frames = vec![MatMessage::Hello {
        protocol: PROTOCOL_VERSION,
        firmware: [1, 0, 0],
        geometry: GEOMETRY,
        leds: true,
    }];
    let cells = u32::from(GEOMETRY.cells());
    for round in 0..rounds {
        let scan_id = round as u16;
        frames.push(MatMessage::ScanBegin {
            scan_id,
            cells: cells as u16,
        });
        for first in (0..cells).step_by(MAX_SCAN_CELLS) {
            let mut states = CellStates::new();
            for i in first..(first + MAX_SCAN_CELLS as u32).min(cells) {
                states.push(state(i, round)).unwrap();
            }
            frames.push(MatMessage::ScanCells {
                scan_id,
                first: first as u16,
                states,
            });
        }
        frames.push(MatMessage::ScanEnd { scan_id });
        for k in 0..40 {
            let i = (k * 37 + round) % cells;
            frames.push(MatMessage::CellChange {
                cell: GEOMETRY.cell_at(i as u16).unwrap(),
                state: state(i, round + k + 1),
            });
        }
        frames.push(MatMessage::Heartbeat {
            uptime_ms: round * 1000,
        });
    }
    let mut bytes = Vec::new();
    let mut buf = [0u8; MAX_FRAME_LEN];
    for (seq, message) in frames.into_iter().enumerate() {
        let n = encode(&Frame::new(seq as u16, message), &mut buf).unwrap();
        bytes.extend_from_slice(&buf[..n]);
    }
    bytes
}

/// `feed` over the whole stream (the host reads in chunks).
#[divan::bench]
fn feed_slices(bencher: Bencher) {
    let bytes = stream(100);
    let frames = MatDecoder::new().feed(&bytes).filter(Result::is_ok).count();
    assert_eq!(frames, 1 + 100 * (1 + 9 + 1 + 40 + 1));
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench_local(|| {
            let mut decoder = MatDecoder::new();
            for chunk in black_box(&bytes).chunks(512) {
                for frame in decoder.feed(chunk) {
                    black_box(frame.ok());
                }
            }
        });
}

/// `push`, one byte at a time (as a firmware's UART interrupt would).
#[divan::bench]
fn push_bytes(bencher: Bencher) {
    let bytes = stream(100);
    bencher
        .counter(BytesCount::new(bytes.len()))
        .bench_local(|| {
            let mut decoder = MatDecoder::new();
            for &b in black_box(&bytes) {
                if let Some(frame) = decoder.push(b) {
                    black_box(frame.ok());
                }
            }
        });
}

/// Encoding one full `ScanCells` frame, for comparison.
#[divan::bench]
fn encode_scan_chunk(bencher: Bencher) {
    let mut states = CellStates::new();
    for i in 0..MAX_SCAN_CELLS as u32 {
        states.push(state(i, 0)).unwrap();
    }
    let frame = Frame::new(
        7,
        MatMessage::ScanCells {
            scan_id: 1,
            first: 0,
            states,
        },
    );
    let mut buf = [0u8; MAX_FRAME_LEN];
    let len = encode(&frame, &mut buf).unwrap();
    bencher
        .counter(BytesCount::new(len))
        .bench_local(|| encode(black_box(&frame), &mut buf).unwrap());
}
