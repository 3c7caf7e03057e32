use arbiter::table::{Cell, Table};
use arbiter::vision::fixtures::Deck;
use arbiter::vision::scene::{SceneParams, felt, render};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let grid = args[1].replace("\\n", "\n");
    let t = Table::parse_grid(&grid, Cell::new(0, 0)).unwrap();
    let mut p = SceneParams { width: 640, height: 360, pitch_px: 48.0, ..SceneParams::clean() };
    if args.len() > 2 && args[2].starts_with("clean:") {
        p.seed = args[2][6..].parse().unwrap();
    }
    if args.len() > 2 && args[2].starts_with("tough:") {
        p = SceneParams { hand: None, seed: args[2][6..].parse().unwrap(), ..SceneParams::tough() };
    }
    if args.len() > 2 && args[2] == "tough2" {
        p.layout_rotation_deg = 74.0; p.per_card_skew_deg = 10.0; p.quarter_turns = true; p.gap_jitter_px = 2.0; p.tilt_deg = 30.0; p.seed = 2;
    }
    let s = render(&t, &p, &|c| {
        let full = match c { Some(card) => arbiter::deck::print::face(card), None => arbiter::deck::print::back() };
        image::imageops::resize(&full, 124, 173, image::imageops::FilterType::Triangle)
    }, &felt(128, 3));
    s.image.save("/tmp/scene.png").unwrap();
}
