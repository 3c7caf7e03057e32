//! The card-reader mat, host side (divan): from the last frame of a settled
//! change to the referee's event, the settle wait excluded.
//!
//! `cargo bench --bench mat`. The board is a mid-game position of about 60
//! cards; the mat is scanned into the host, then a legal move's two cell
//! changes arrive and the host is ticked past its settle time.

use std::time::{Duration, Instant};

use arbiter::deck::tags::{Registry, sim_tag};
use arbiter::games::enprise::Action;
use arbiter::input::mat::MatHost;
use arbiter::referee::Referee;
use arbiter::table::{Cell, Table, Token};
use arbiter_testkit::games::enprise::random::position_with_cards;
use divan::{Bencher, black_box};
use firmware_protocol::{
    CellIndex, CellState, CellStates, Face, Frame, Geometry, MAX_FRAME_LEN, MAX_SCAN_CELLS,
    MatMessage, PROTOCOL_VERSION, TagId, encode,
};

fn main() {
    divan::main();
}

const SETTLE: Duration = Duration::from_millis(300);

fn hello(geometry: Geometry) -> MatMessage {
    MatMessage::Hello {
        protocol: PROTOCOL_VERSION,
        firmware: [1, 0, 0],
        geometry,
        leds: true,
    }
}

fn frame(seq: &mut u16, m: MatMessage) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME_LEN];
    let n = encode(&Frame::new(*seq, m), &mut buf).unwrap();
    *seq = seq.wrapping_add(1);
    buf[..n].to_vec()
}

/// A mat cell state for a token, with the simulated deck's tags (copies
/// counted per card so no two cells share a tag).
fn states(table: &Table, offset: Cell, g: Geometry) -> Vec<CellState> {
    let mut out = vec![CellState::Empty; usize::from(g.cells())];
    let mut used: std::collections::HashMap<String, u8> = Default::default();
    let mut unknown = 0x5b00_0000_0000u64;
    for (c, t) in table.iter() {
        let c = c.plus(offset);
        let i = usize::from(
            g.index_of(CellIndex::new(c.col as u8, c.row as u8))
                .unwrap(),
        );
        out[i] = match t {
            Token::Up(card) => {
                let k = used.entry(card.to_string()).or_default();
                *k += 1;
                CellState::Card {
                    tag: TagId(sim_tag(card, *k - 1)),
                    face: Face::Up,
                }
            }
            _ => {
                unknown += 1;
                CellState::Card {
                    tag: TagId(unknown),
                    face: Face::Down,
                }
            }
        };
    }
    out
}

#[divan::bench]
fn last_frame_to_event(bencher: Bencher) {
    let game = position_with_cards(80, 4, 60).expect("a 60-card position");
    let action = game
        .legal_actions()
        .into_iter()
        .find(|a| matches!(a, Action::Move { captured: None, .. }))
        .expect("a quiet move");
    let Action::Move { card, from, to, .. } = action else {
        unreachable!()
    };
    let table = game.table();
    let (lo, hi) = table.bounds().unwrap();
    let offset = Cell::new(1 - lo.col, 1 - lo.row);
    let g = Geometry {
        cols: (hi.col - lo.col + 3) as u8,
        rows: (hi.row - lo.row + 3) as u8,
        pitch_x_mm: 63,
        pitch_y_mm: 88,
    };
    let cells = states(&table, offset, g);
    let t0 = Instant::now();
    // A host with the mat scanned and settled, and a referee that has seen it.
    let mut seq = 0u16;
    let mut host = MatHost::new(Registry::simulated(), SETTLE, t0);
    host.connected();
    host.on_bytes(&frame(&mut seq, hello(g)), t0);
    let mut scan = frame(
        &mut seq,
        MatMessage::ScanBegin {
            scan_id: 1,
            cells: g.cells(),
        },
    );
    for (k, chunk) in cells.chunks(MAX_SCAN_CELLS).enumerate() {
        let states = CellStates::from_slice(chunk).unwrap();
        scan.extend(frame(
            &mut seq,
            MatMessage::ScanCells {
                scan_id: 1,
                first: (k * MAX_SCAN_CELLS) as u16,
                states,
            },
        ));
    }
    scan.extend(frame(&mut seq, MatMessage::ScanEnd { scan_id: 1 }));
    host.on_bytes(&scan, t0);
    let first = host.on_tick(t0 + SETTLE).expect("the scan settles");
    let mut referee = Referee::new(game.clone());
    assert!(
        referee.observe(0, &first).is_empty(),
        "the scanned mat shows the position"
    );

    // The move: the origin gets the vacant card, the destination the piece.
    let o = from.plus(offset);
    let d = to.plus(offset);
    let idx = |c: Cell| {
        usize::from(
            g.index_of(CellIndex::new(c.col as u8, c.row as u8))
                .unwrap(),
        )
    };
    let origin_change = MatMessage::CellChange {
        cell: CellIndex::new(o.col as u8, o.row as u8),
        state: cells[idx(d)],
    };
    let dest_change = MatMessage::CellChange {
        cell: CellIndex::new(d.col as u8, d.row as u8),
        state: cells[idx(o)],
    };
    let first_frame = frame(&mut seq, origin_change);
    let last_frame = frame(&mut seq, dest_change);
    let t1 = t0 + Duration::from_secs(1);
    bencher
        .with_inputs(|| {
            let mut h = MatHost::new(Registry::simulated(), SETTLE, t0);
            h.connected();
            let mut s = 0u16;
            h.on_bytes(&frame(&mut s, hello(g)), t0);
            // Replays the same scan with fresh numbering.
            let mut d = firmware_protocol::MatDecoder::new();
            let mut bytes = Vec::new();
            for f in d.feed(&scan).filter_map(Result::ok) {
                bytes.extend(frame(&mut s, f.message));
            }
            h.on_bytes(&bytes, t0);
            h.on_tick(t0 + SETTLE);
            let mut f1 = Vec::new();
            for f in d.feed(&first_frame).filter_map(Result::ok) {
                f1.extend(frame(&mut s, f.message));
            }
            h.on_bytes(&f1, t1);
            let mut f2 = Vec::new();
            for f in d.feed(&last_frame).filter_map(Result::ok) {
                f2.extend(frame(&mut s, f.message));
            }
            let mut r = Referee::new(game.clone());
            r.observe(0, &first);
            (h, r, f2)
        })
        .bench_local_values(|(mut h, mut r, last)| {
            h.on_bytes(black_box(&last), t1);
            let obs = h.on_tick(t1 + SETTLE).expect("settled");
            let events = r.observe(1, &obs);
            assert!(!events.is_empty());
            events
        });
    let _ = card;
}
