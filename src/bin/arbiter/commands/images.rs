//! The commands on pictures: `recognise`, `calibrate`, `deck learn` and
//! `deck export`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arbiter::input::vision;
use arbiter::vision::calibration::Calibration;
use arbiter::vision::cards::Identify;
use arbiter::vision::finder::detect_with;
use arbiter::vision::photo::CardPicture;
use arbiter::vision::templates::DeckModel;

use super::device::config_file;
use crate::args::PaperArg;

/// `arbiter recognise`: each image read on its own, in order. An image
/// that cannot be read is named on stderr and the others still are; the
/// command then fails.
pub fn recognise(
    images: &[PathBuf],
    deck: Option<&Path>,
    calibration: Option<&Path>,
    json: bool,
) -> Result<()> {
    let r = vision::recogniser(deck, calibration)?;
    let mut out = io::stdout().lock();
    let mut failed = 0;
    for path in images {
        let img = match image::open(path) {
            Ok(i) => i.to_rgb8(),
            Err(e) => {
                eprintln!("arbiter: {}: cannot read the image: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let rec = match r.recognise_checked(&img) {
            Ok(rec) => rec,
            Err(stale) => {
                // Cells named by a calibration that does not fit would be
                // the wrong cells: the image is refused, and why.
                eprintln!(
                    "arbiter: {}: {}: {stale}: calibrate on this camera with `arbiter calibrate \
                     --image {}`, or leave out --calibration to name cells from the cards alone",
                    path.display(),
                    calibration.map_or(String::new(), |c| c.display().to_string()),
                    path.display()
                );
                failed += 1;
                continue;
            }
        };
        if let Some(note) = &rec.note {
            eprintln!("arbiter: {}: {note}", path.display());
        }
        let name = path.display().to_string();
        let text = if json {
            rec.to_json(&name) + "\n"
        } else {
            let (origin, grid) = rec.table().to_grid();
            let busy = if rec.busy {
                " (busy: hands over the table)"
            } else {
                ""
            };
            format!(
                "# {name}{busy}\norigin = [{}, {}]\ntable = \"\"\"\n{grid}\"\"\"\n",
                origin.col, origin.row
            )
        };
        if out.write_all(text.as_bytes()).is_err() {
            return Ok(());
        }
    }
    if failed > 0 {
        bail!("{failed} of {} images were not read", images.len());
    }
    Ok(())
}

/// `arbiter calibrate`: one frame of cards laid out, fitted and saved.
pub fn calibrate(
    image: Option<&Path>,
    camera: Option<u32>,
    deck: Option<&Path>,
    out: Option<PathBuf>,
) -> Result<()> {
    let (frame, source) = match (image, camera) {
        (Some(p), _) => (
            image::open(p)
                .with_context(|| format!("{}: cannot read the image", p.display()))?
                .to_rgb8(),
            p.display().to_string(),
        ),
        (None, Some(n)) => (camera_frame(n)?, format!("camera:{n}")),
        (None, None) => bail!("name the picture: --image FILE, or --camera N"),
    };
    let out = out
        .or_else(|| config_file("camera.toml"))
        .context("no configuration folder: name the file with --out FILE")?;
    let model = deck.map(DeckModel::load).transpose()?;
    let id: &dyn Identify = match &model {
        Some(m) => m,
        None => DeckModel::bundled(),
    };
    let dets = detect_with(&frame, id);
    let cal = Calibration::from_detections(&dets, frame.dimensions(), &source)
        .map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    cal.save(&out)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    let placed = cal.place(&dets).cells.len();
    println!(
        "calibrated from {source}: {placed} cards on the grid, a card {:.0} px wide; written to {} (camera inputs use it from there{})",
        cal.card_px,
        out.display(),
        if config_file("camera.toml").as_ref() == Some(&out) {
            ""
        } else {
            ": pass it as --calibration FILE"
        }
    );
    Ok(())
}

/// One frame from a camera, after a moment for its exposure to settle.
#[cfg(feature = "camera")]
fn camera_frame(n: u32) -> Result<image::RgbImage> {
    let mut cam = arbiter::input::camera::Webcam::open(n, (1280, 720), 30)?;
    let mut last = None;
    for _ in 0..15 {
        last = Some(cam.capture()?.image);
    }
    last.with_context(|| format!("camera:{n}: no frame came"))
}

#[cfg(not(feature = "camera"))]
fn camera_frame(n: u32) -> Result<image::RgbImage> {
    bail!(
        "--camera {n}: this build has no camera support; build it with `cargo build --release --features camera`, or calibrate from a photograph with --image FILE"
    )
}

/// `arbiter deck learn`: a deck model from one picture per card kind.
pub fn learn_deck(faces: &Path, out: &Path) -> Result<()> {
    // Each picture as it was taken: a photo whose card was not found is
    // learned whole, and is worth taking again.
    let mut say = |path: &Path, p: &CardPicture| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        match p {
            CardPicture::OnSurface(_) => {
                println!("{name}: card found on the surface, straightened and cropped")
            }
            CardPicture::Cropped => println!("{name}: used as it is (the card to its edge)"),
            CardPicture::NoCard => {}
        }
    };
    let model = DeckModel::learn_dir_saying(faces, &mut say)?;
    model
        .save(out)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    println!(
        "{} card kinds learned from {} into {}{}",
        model.kinds(),
        faces.display(),
        out.display(),
        if model.has_corner_code() {
            " (the faces carry arbiter's corner code: read too)"
        } else {
            ""
        }
    );
    Ok(())
}

/// `arbiter deck export`: the printable deck.
pub fn export_deck(dir: &Path) -> Result<()> {
    let files = arbiter::deck::print::export(dir)
        .with_context(|| format!("{}: cannot write the deck", dir.display()))?;
    println!("{} files written in {}", files.len(), dir.display());
    Ok(())
}

/// `arbiter deck print`: the printable deck as a PDF at true size.
pub fn print_deck(paper: PaperArg, enochian: bool, out: Option<PathBuf>) -> Result<()> {
    use arbiter::deck::print::pdf::{Layout, Paper, deck_pdf};
    use arbiter::deck::print::{enochian_deck, full_deck};
    let paper = match paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    let (deck, title, stem) = if enochian {
        (
            enochian_deck(),
            "arbiter's Enochian armies",
            "arbiter-enochian",
        )
    } else {
        (full_deck(), "arbiter's En Prise deck", "arbiter-deck")
    };
    let out = out.unwrap_or_else(|| {
        PathBuf::from(format!(
            "{stem}-{}.pdf",
            if paper == Paper::A4 { "a4" } else { "letter" }
        ))
    });
    let bytes = deck_pdf(&deck, paper, title);
    std::fs::write(&out, bytes).with_context(|| format!("{}: cannot write", out.display()))?;
    let layout = Layout::for_paper(paper);
    let sheets = deck.len().div_ceil(layout.per_sheet() as usize);
    println!(
        "{}: {} cards at 63 x 88 mm on {sheets} sheets of {} ({} a sheet) and a sheet of backs; \
         print at 100% (\"Actual size\"), then check the 50 mm bar with a ruler",
        out.display(),
        deck.len(),
        paper.name(),
        layout.per_sheet()
    );
    Ok(())
}
