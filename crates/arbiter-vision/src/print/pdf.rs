//! The printable deck as a PDF: every card at its true size (63 × 88 mm)
//! on A4 or US Letter, with crop marks, a note to print at 100% and a
//! 50 mm bar to check the print with a ruler.
//!
//! A PDF, unlike a PNG, fixes the size on paper: a print dialog that keeps
//! "actual size" prints each card at exactly 63 × 88 mm. The cards are the
//! faces of [`face`] and [`back`] at 300 dpi, each kind stored once and
//! placed as often as the deck has it. Written with `pdf-writer` (the
//! Typst project's PDF writer: objects and content streams, nothing
//! hidden); images compressed with `miniz_oxide`.

use image::RgbImage;
use miniz_oxide::deflate::{CompressionLevel, compress_to_vec_zlib};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str};

use super::{back, face};
use arbiter_core::table::Card;

/// A card's size on paper, in millimetres.
pub const CARD_MM: (f32, f32) = (63.0, 88.0);

/// The least room around the grid of cards: the crop marks and the notes
/// go there, inside what printers can print.
const MARGIN_MM: f32 = 10.0;

/// Crop marks start this far from the grid and are this long.
const MARK_GAP_MM: f32 = 1.5;
const MARK_LEN_MM: f32 = 6.0;

/// The scale bar's length.
pub const BAR_MM: f32 = 50.0;

const PT_PER_MM: f32 = 72.0 / 25.4;

/// The paper to print on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    A4,
    Letter,
}

impl Paper {
    /// Width and height, portrait, in millimetres.
    pub fn size_mm(self) -> (f32, f32) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "US Letter",
        }
    }
}

/// How the cards sit on a sheet: the sheet's size as printed (portrait or
/// landscape, whichever holds more cards) and the grid, centred.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// The page's width and height in millimetres.
    pub page_mm: (f32, f32),
    pub cols: u32,
    pub rows: u32,
}

impl Layout {
    /// The most cards `paper` holds edge to edge with [`MARGIN_MM`] around
    /// them: A4 takes 3 × 3 upright, Letter 4 × 2 turned.
    pub fn for_paper(paper: Paper) -> Layout {
        let (w, h) = paper.size_mm();
        let fit = |(w, h): (f32, f32)| Layout {
            page_mm: (w, h),
            cols: ((w - 2.0 * MARGIN_MM) / CARD_MM.0).floor() as u32,
            rows: ((h - 2.0 * MARGIN_MM) / CARD_MM.1).floor() as u32,
        };
        let (upright, turned) = (fit((w, h)), fit((h, w)));
        if turned.per_sheet() > upright.per_sheet() {
            turned
        } else {
            upright
        }
    }

    pub fn per_sheet(&self) -> u32 {
        self.cols * self.rows
    }

    /// The grid's lower-left corner, in millimetres from the page's.
    fn origin_mm(&self) -> (f32, f32) {
        (
            (self.page_mm.0 - self.cols as f32 * CARD_MM.0) / 2.0,
            (self.page_mm.1 - self.rows as f32 * CARD_MM.1) / 2.0,
        )
    }
}

/// One kind of card's picture in the file.
struct Picture {
    id: Ref,
    name: Vec<u8>,
}

/// The PDF of `deck` (its faces in order, then a sheet of backs) on
/// `paper`, titled `title` ("En Prise deck", say).
pub fn deck_pdf(deck: &[Card], paper: Paper, title: &str) -> Vec<u8> {
    let layout = Layout::for_paper(paper);
    let per = layout.per_sheet() as usize;
    let mut next = 1;
    let mut new_ref = || {
        let r = Ref::new(next);
        next += 1;
        r
    };
    let (catalog, tree, font) = (new_ref(), new_ref(), new_ref());
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(tree);
    pdf.type1_font(font).base_font(Name(b"Helvetica"));

    // Each kind once; pages place it by name.
    let mut kinds: Vec<Card> = deck.to_vec();
    kinds.sort();
    kinds.dedup();
    let mut pictures: Vec<(Option<Card>, Picture)> = Vec::new();
    for (i, kind) in kinds.iter().map(|&c| Some(c)).chain([None]).enumerate() {
        let id = new_ref();
        let img = kind.map_or_else(back, face);
        write_image(&mut pdf, id, &img);
        pictures.push((
            kind,
            Picture {
                id,
                name: format!("C{i}").into_bytes(),
            },
        ));
    }
    let picture = |kind| picture_of(&pictures, kind);

    let mut sheets: Vec<Vec<Option<Card>>> = deck
        .chunks(per)
        .map(|c| c.iter().map(|&c| Some(c)).collect())
        .collect();
    sheets.push(vec![None; per]);
    let count = sheets.len();
    let mut pages = Vec::new();
    for (n, cards) in sheets.iter().enumerate() {
        let (page, content) = (new_ref(), new_ref());
        pages.push(page);
        let backs = n + 1 == count;
        let heading = if backs {
            format!(
                "{title}: backs. Print on the reverse of each sheet; the grid is centred, so either flip lines up."
            )
        } else {
            format!("{title}: sheet {} of {}.", n + 1, count - 1)
        };
        let stream = sheet_content(&layout, cards, &pictures, &heading, paper);
        pdf.stream(content, &stream);
        let mut p = pdf.page(page);
        p.media_box(Rect::new(
            0.0,
            0.0,
            layout.page_mm.0 * PT_PER_MM,
            layout.page_mm.1 * PT_PER_MM,
        ));
        p.parent(tree);
        p.contents(content);
        let mut resources = p.resources();
        resources.fonts().pair(Name(b"F1"), font);
        let mut objects = resources.x_objects();
        let mut used: Vec<Option<Card>> = cards.clone();
        used.sort();
        used.dedup();
        for kind in used {
            let pic = picture(kind);
            objects.pair(Name(&pic.name), pic.id);
        }
        objects.finish();
        resources.finish();
        p.finish();
    }
    pdf.pages(tree)
        .kids(pages.iter().copied())
        .count(pages.len() as i32);
    pdf.finish()
}

fn picture_of(pictures: &[(Option<Card>, Picture)], kind: Option<Card>) -> &Picture {
    &pictures
        .iter()
        .find(|(k, _)| *k == kind)
        .expect("every kind has its picture")
        .1
}

/// A card's picture as an RGB image stream, deflated.
fn write_image(pdf: &mut Pdf, id: Ref, img: &RgbImage) {
    let data = compress_to_vec_zlib(img.as_raw(), CompressionLevel::DefaultLevel as u8);
    let mut x = pdf.image_xobject(id, &data);
    x.filter(Filter::FlateDecode);
    x.width(img.width() as i32);
    x.height(img.height() as i32);
    x.color_space().device_rgb();
    x.bits_per_component(8);
}

/// One sheet: its cards in the grid, row by row from the top, the crop
/// marks, the notes and the scale bar.
fn sheet_content(
    layout: &Layout,
    cards: &[Option<Card>],
    pictures: &[(Option<Card>, Picture)],
    heading: &str,
    paper: Paper,
) -> Vec<u8> {
    let mm = |v: f32| v * PT_PER_MM;
    let (x0, y0) = layout.origin_mm();
    let (gw, gh) = (
        layout.cols as f32 * CARD_MM.0,
        layout.rows as f32 * CARD_MM.1,
    );
    let mut c = Content::new();
    for (i, &kind) in cards.iter().enumerate() {
        let (col, row) = (i as u32 % layout.cols, i as u32 / layout.cols);
        // PDF's y grows upwards; row 0 is the top one.
        let x = x0 + col as f32 * CARD_MM.0;
        let y = y0 + (layout.rows - 1 - row) as f32 * CARD_MM.1;
        c.save_state();
        // The image's unit square scaled to the card's true size.
        c.transform([mm(CARD_MM.0), 0.0, 0.0, mm(CARD_MM.1), mm(x), mm(y)]);
        c.x_object(Name(&picture_of(pictures, kind).name));
        c.restore_state();
    }
    // Crop marks: every cut line, in the margins only, so no mark shows on
    // a card once cut.
    c.set_line_width(0.5);
    c.set_stroke_gray(0.0);
    for i in 0..=layout.cols {
        let x = mm(x0 + i as f32 * CARD_MM.0);
        for (from, to) in [
            (y0 - MARK_GAP_MM, y0 - MARK_GAP_MM - MARK_LEN_MM),
            (y0 + gh + MARK_GAP_MM, y0 + gh + MARK_GAP_MM + MARK_LEN_MM),
        ] {
            c.move_to(x, mm(from));
            c.line_to(x, mm(to));
        }
    }
    for j in 0..=layout.rows {
        let y = mm(y0 + j as f32 * CARD_MM.1);
        for (from, to) in [
            (x0 - MARK_GAP_MM, x0 - MARK_GAP_MM - MARK_LEN_MM),
            (x0 + gw + MARK_GAP_MM, x0 + gw + MARK_GAP_MM + MARK_LEN_MM),
        ] {
            c.move_to(mm(from), y);
            c.line_to(mm(to), y);
        }
    }
    c.stroke();
    // Above the grid: what to set in the print dialog. Below it: the scale
    // bar to check the result with a ruler.
    let top = y0 + gh + MARK_GAP_MM + MARK_LEN_MM;
    let text_y = top + (layout.page_mm.1 - top) / 2.0 - 1.0;
    let note = format!(
        "PRINT AT 100% (\"Actual size\", not \"Fit to page\") on {} paper. Cards are 63 x 88 mm.",
        paper.name()
    );
    let line = |c: &mut Content, x: f32, y: f32, size: f32, text: &str| {
        c.begin_text();
        c.set_font(Name(b"F1"), size);
        c.next_line(mm(x), mm(y));
        c.show(Str(text.as_bytes()));
        c.end_text();
    };
    c.set_fill_gray(0.0);
    line(&mut c, x0, text_y + 1.2, 8.0, &note);
    line(&mut c, x0, text_y - 2.6, 7.0, heading);
    let bottom = y0 - MARK_GAP_MM - MARK_LEN_MM;
    let bar_y = bottom / 2.0;
    c.set_line_width(0.6);
    c.move_to(mm(x0), mm(bar_y));
    c.line_to(mm(x0 + BAR_MM), mm(bar_y));
    for tick in [0.0, BAR_MM] {
        c.move_to(mm(x0 + tick), mm(bar_y - 1.2));
        c.line_to(mm(x0 + tick), mm(bar_y + 1.2));
    }
    c.stroke();
    line(
        &mut c,
        x0 + BAR_MM + 3.0,
        bar_y - 1.0,
        7.0,
        "<- this bar is 50 mm: measure it to check the print",
    );
    c.finish().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a4_holds_nine_cards_upright_and_letter_eight_turned() {
        let a4 = Layout::for_paper(Paper::A4);
        assert_eq!((a4.cols, a4.rows, a4.page_mm), (3, 3, (210.0, 297.0)));
        let letter = Layout::for_paper(Paper::Letter);
        assert_eq!(
            (letter.cols, letter.rows, letter.page_mm),
            (4, 2, (279.4, 215.9))
        );
        // Room for the marks on every side.
        for l in [a4, letter] {
            let (x0, y0) = l.origin_mm();
            assert!(x0.min(y0) >= MARGIN_MM, "{l:?}");
        }
    }
}
