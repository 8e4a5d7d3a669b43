//! Pictures of a tree and its elements: a tiny rasteriser (filled rectangles and
//! lines into an RGBA buffer), a drawing of the leaves ([`SpatialIndex::traverse`]) and
//! the elements ([`SpatialIndex::iter`]) of a square region of the world, and PNG and
//! animated GIF encoding (the pure-Rust `png` and `gif` crates).
//!
//! The drawing ([`draw_tree`]): a dark background; every leaf that meets the
//! region filled by how full it is (its links over the tree's `max_elements`, in
//! four shades of blue); every element a filled square, white, or pink when it
//! overlaps another element (a [`SpatialIndex::visit`] of its own rectangle), or,
//! when it began a contact this frame, yellow, and when it ended one (and began
//! none), cyan (the contact events of a [`flatquad::PairTracker`]); over
//! them every leaf outlined in a colour of its depth (blue for the shallowest leaf
//! drawn, through cyan and green, to orange for the deepest); last, elements more
//! than [`BIG_PIXELS`] wide as two-pixel outlines. World `(x, y)` maps to pixel
//! column `(x - region.x) * scale`, row `(y - region.y) * scale`: y grows downward,
//! as in the tree (`y1` is the top edge).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;

use flatquad::{Handle, NodeInfo, Query, Rect, SpatialIndex};

/// An 8-bit RGBA colour.
pub type Rgba = [u8; 4];

/// The colour `0xRRGGBB`, opaque.
pub const fn rgb(hex: u32) -> Rgba {
    [(hex >> 16) as u8, (hex >> 8) as u8, hex as u8, 255]
}

/// An RGBA image, row by row from the top, 4 bytes a pixel. Every drawing call
/// writes opaque colours and clips to the image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canvas {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Canvas {
    /// An image of `width` × `height` pixels filled with `background`.
    pub fn new(width: u32, height: u32, background: Rgba) -> Self {
        let n = width as usize * height as usize;
        let mut rgba = Vec::with_capacity(4 * n);
        for _ in 0..n {
            rgba.extend_from_slice(&background);
        }
        Canvas {
            width,
            height,
            rgba,
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, RGBA, row by row from the top.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    /// The colour of pixel `(x, y)`, `None` outside the image.
    pub fn pixel(&self, x: i64, y: i64) -> Option<Rgba> {
        let i = self.offset(x, y)?;
        let mut c = [0; 4];
        c.copy_from_slice(&self.rgba[i..i + 4]);
        Some(c)
    }

    fn offset(&self, x: i64, y: i64) -> Option<usize> {
        let inside = (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y);
        inside.then(|| 4 * (y as usize * self.width as usize + x as usize))
    }

    /// Sets pixel `(x, y)`; nothing outside the image.
    pub fn put(&mut self, x: i64, y: i64, c: Rgba) {
        if let Some(i) = self.offset(x, y) {
            self.rgba[i..i + 4].copy_from_slice(&c);
        }
    }

    /// Fills the pixels `x0 <= x < x1`, `y0 <= y < y1` (clipped; nothing if empty).
    pub fn fill_rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgba) {
        let (w, h) = (self.width as i64, self.height as i64);
        let (x0, x1) = (x0.clamp(0, w), x1.clamp(0, w));
        let (y0, y1) = (y0.clamp(0, h), y1.clamp(0, h));
        for y in y0..y1 {
            let row = 4 * (y as usize * self.width as usize);
            for px in self.rgba[row + 4 * x0 as usize..row + 4 * x1 as usize].chunks_exact_mut(4) {
                px.copy_from_slice(&c);
            }
        }
    }

    /// The one-pixel border of the pixels `x0..=x1`, `y0..=y1` (clipped).
    pub fn outline(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgba) {
        self.fill_rect(x0, y0, x1 + 1, y0 + 1, c);
        self.fill_rect(x0, y1, x1 + 1, y1 + 1, c);
        self.fill_rect(x0, y0, x0 + 1, y1 + 1, c);
        self.fill_rect(x1, y0, x1 + 1, y1 + 1, c);
    }

    /// A one-pixel line from `(x0, y0)` to `(x1, y1)`, both ends included
    /// (Bresenham), clipped pixel by pixel.
    pub fn line(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgba) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = ((x1 - x0).signum(), (y1 - y0).signum());
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        loop {
            self.put(x, y, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// The image as palette indices, with the palette, when it has at most 256
    /// colours (every drawing of [`draw_tree`] has).
    pub fn indexed(&self) -> Option<(Vec<Rgba>, Vec<u8>)> {
        let mut palette: Vec<Rgba> = Vec::new();
        let mut index: HashMap<Rgba, u8> = HashMap::new();
        let mut pixels = Vec::with_capacity(self.rgba.len() / 4);
        for px in self.rgba.chunks_exact(4) {
            let c = [px[0], px[1], px[2], px[3]];
            let i = match index.get(&c) {
                Some(&i) => i,
                None => {
                    let i = u8::try_from(palette.len()).ok()?;
                    palette.push(c);
                    index.insert(c, i);
                    i
                }
            };
            pixels.push(i);
        }
        Some((palette, pixels))
    }

    /// Encodes the image as a PNG: 8-bit indexed when it has at most 256 opaque
    /// colours (much smaller), RGBA otherwise.
    pub fn write_png(&self, out: impl Write) -> Result<(), png::EncodingError> {
        let mut encoder = png::Encoder::new(out, self.width, self.height);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::High);
        match self
            .indexed()
            .filter(|(p, _)| p.iter().all(|c| c[3] == 255))
        {
            Some((palette, pixels)) => {
                encoder.set_color(png::ColorType::Indexed);
                encoder.set_palette(
                    palette
                        .iter()
                        .flat_map(|c| [c[0], c[1], c[2]])
                        .collect::<Vec<_>>(),
                );
                let mut writer = encoder.write_header()?;
                writer.write_image_data(&pixels)?;
                writer.finish()
            }
            None => {
                encoder.set_color(png::ColorType::Rgba);
                let mut writer = encoder.write_header()?;
                writer.write_image_data(&self.rgba)?;
                writer.finish()
            }
        }
    }

    /// Writes the image as a PNG file at `path`.
    pub fn save_png(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let mut out = BufWriter::new(File::create(path)?);
        self.write_png(&mut out).map_err(io::Error::other)?;
        out.flush()
    }
}

/// An animated GIF, written frame by frame, looping forever. Each frame carries its
/// own palette (at most 256 colours: every drawing of [`draw_tree`] fits).
pub struct GifWriter<W: Write> {
    encoder: gif::Encoder<W>,
    width: u16,
    height: u16,
}

impl GifWriter<BufWriter<File>> {
    /// A GIF file at `path` of `width` × `height` pixels.
    pub fn create(path: impl AsRef<Path>, width: u32, height: u32) -> io::Result<Self> {
        GifWriter::new(BufWriter::new(File::create(path)?), width, height)
    }
}

impl<W: Write> GifWriter<W> {
    /// A GIF of `width` × `height` pixels (at most 65535 each) written to `out`.
    pub fn new(out: W, width: u32, height: u32) -> io::Result<Self> {
        let too_big = || {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a GIF side is at most 65535 pixels",
            )
        };
        let width = u16::try_from(width).map_err(|_| too_big())?;
        let height = u16::try_from(height).map_err(|_| too_big())?;
        let mut encoder = gif::Encoder::new(out, width, height, &[]).map_err(io::Error::other)?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(io::Error::other)?;
        Ok(GifWriter {
            encoder,
            width,
            height,
        })
    }

    /// Appends `canvas` (of the GIF's size) as a frame shown for `delay_cs`
    /// hundredths of a second.
    pub fn add(&mut self, canvas: &Canvas, delay_cs: u16) -> io::Result<()> {
        if (canvas.width(), canvas.height()) != (u32::from(self.width), u32::from(self.height)) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a frame of another size",
            ));
        }
        let (palette, pixels) = canvas.indexed().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a GIF frame has at most 256 colours",
            )
        })?;
        let rgb: Vec<u8> = palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
        let mut frame = gif::Frame::from_palette_pixels(self.width, self.height, pixels, rgb, None);
        frame.delay = delay_cs;
        self.encoder.write_frame(&frame).map_err(io::Error::other)
    }

    /// Ends the GIF and returns the writer.
    pub fn finish(self) -> io::Result<W> {
        self.encoder.into_inner().map_err(io::Error::other)
    }
}

/// A square region of the world drawn into a square image of `pixels` on a side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Left edge of the region.
    pub x: f32,
    /// Top edge of the region.
    pub y: f32,
    /// Side of the region, in world units.
    pub side: f32,
    /// Side of the image, in pixels.
    pub pixels: u32,
}

impl View {
    /// Pixels per world unit.
    pub fn scale(&self) -> f64 {
        f64::from(self.pixels) / f64::from(self.side)
    }

    fn col(&self, x: f32) -> f64 {
        (f64::from(x) - f64::from(self.x)) * self.scale()
    }

    fn row(&self, y: f32) -> f64 {
        (f64::from(y) - f64::from(self.y)) * self.scale()
    }

    /// Whether the closed rectangle `r` meets the region.
    pub fn meets(&self, r: &Rect) -> bool {
        r.x1 <= self.x + self.side && self.x <= r.x2 && r.y1 <= self.y + self.side && self.y <= r.y2
    }

    /// The pixels `(x0, y0, x1, y1)`, half-open, `r` covers: at least one pixel.
    fn fill_span(&self, r: &Rect) -> (i64, i64, i64, i64) {
        let (x0, y0) = (self.col(r.x1).floor() as i64, self.row(r.y1).floor() as i64);
        let (x1, y1) = (self.col(r.x2).floor() as i64, self.row(r.y2).floor() as i64);
        (x0, y0, x1.max(x0 + 1), y1.max(y0 + 1))
    }

    /// The pixel columns and rows `(x0, y0, x1, y1)`, inclusive, of `r`'s edges;
    /// an edge on the region's right or bottom side lands on the last pixel.
    fn edge_span(&self, r: &Rect) -> (i64, i64, i64, i64) {
        let last = i64::from(self.pixels) - 1;
        let edge = |v: f64| (v.floor() as i64).min(last);
        (
            edge(self.col(r.x1)),
            edge(self.row(r.y1)),
            edge(self.col(r.x2)),
            edge(self.row(r.y2)),
        )
    }
}

/// The background.
pub const BACKGROUND: Rgba = rgb(0x0d1321);
/// An element that overlaps no other.
pub const AGENT: Rgba = rgb(0xf1f5f9);
/// An element that overlaps another.
pub const COLLIDING: Rgba = rgb(0xff3d9a);
/// An element that began a contact this frame.
pub const BEGAN: Rgba = rgb(0xffd23f);
/// An element that ended a contact this frame (and began none).
pub const ENDED: Rgba = rgb(0x3fe0ff);
/// Elements wider or taller than this many pixels are drawn as outlines.
pub const BIG_PIXELS: i64 = 12;
/// Leaf outlines, shallowest to deepest drawn.
pub const DEPTH_COLOURS: [Rgba; 8] = [
    rgb(0x3656d6),
    rgb(0x2f7fe0),
    rgb(0x22a6d8),
    rgb(0x1fc1a4),
    rgb(0x4fcf5f),
    rgb(0xa6d13a),
    rgb(0xe8c12a),
    rgb(0xf08a24),
];
/// Leaf fills, emptiest (but not empty) to fullest.
pub const FILL_COLOURS: [Rgba; 4] = [rgb(0x121c33), rgb(0x172646), rgb(0x1c3159), rgb(0x223d6e)];

/// The colour of depth `depth` among leaves of depths `min..=max`.
fn depth_colour(depth: u32, min: u32, max: u32) -> Rgba {
    let last = DEPTH_COLOURS.len() - 1;
    let i = if max > min {
        ((depth - min) as usize * last + (max - min) as usize / 2) / (max - min) as usize
    } else {
        last / 2
    };
    DEPTH_COLOURS[i.min(last)]
}

/// What [`draw_tree`] drew.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drawn {
    /// Leaves that meet the region.
    pub leaves: usize,
    /// Shallowest and deepest of those leaves.
    pub depths: (u32, u32),
    /// Elements that meet the region.
    pub elements: usize,
    /// Of those, the ones that overlap another element.
    pub colliding: usize,
    /// Of those, the ones drawn as having begun a contact this frame.
    pub began: usize,
    /// Of those, the ones drawn as having ended a contact (and begun none).
    pub ended: usize,
}

/// The contact events of the frame drawn: the pairs that began and ended.
#[derive(Clone, Copy, Debug, Default)]
pub struct Events<'a> {
    /// Pairs that began overlapping.
    pub began: &'a [[Handle; 2]],
    /// Pairs that ended.
    pub ended: &'a [[Handle; 2]],
}

/// Draws `tree`'s leaves and elements in the region `view`, the elements of
/// `events` marked (see the module's doc for the colours).
pub fn draw_tree(
    tree: &impl SpatialIndex<Bounds = Rect>,
    view: &View,
    events: Events,
) -> (Canvas, Drawn) {
    let mut event_of: HashMap<Handle, Rgba> = HashMap::new();
    for (pairs, colour) in [(events.ended, ENDED), (events.began, BEGAN)] {
        for handle in pairs.iter().flatten() {
            event_of.insert(*handle, colour);
        }
    }
    let mut canvas = Canvas::new(view.pixels, view.pixels, BACKGROUND);
    let mut leaves: Vec<NodeInfo> = Vec::new();
    let _ = tree.traverse(
        |_| ControlFlow::Continue(()),
        |leaf| {
            if view.meets(&leaf.rect) {
                leaves.push(*leaf);
            }
            ControlFlow::Continue(())
        },
    );
    let mut drawn = Drawn {
        leaves: leaves.len(),
        depths: (
            leaves.iter().map(|l| l.depth).min().unwrap_or(0),
            leaves.iter().map(|l| l.depth).max().unwrap_or(0),
        ),
        ..Drawn::default()
    };
    // Shaded against the fullest leaf drawn: trees and grids alike.
    let full = leaves
        .iter()
        .map(|l| l.count as usize)
        .max()
        .unwrap_or(1)
        .max(1);
    for leaf in leaves.iter().filter(|l| l.count > 0) {
        let (x0, y0, x1, y1) = view.edge_span(&leaf.rect);
        let shade = (leaf.count as usize * FILL_COLOURS.len()).div_ceil(full);
        let colour = FILL_COLOURS[shade.clamp(1, FILL_COLOURS.len()) - 1];
        canvas.fill_rect(x0, y0, x1 + 1, y1 + 1, colour);
    }
    // Elements: small ones filled under the leaf outlines, big ones outlined on top
    // (so that they hide neither the tree nor the small ones).
    let mut big = Vec::new();
    for (handle, rect, _id) in tree.iter() {
        if !view.meets(&rect) {
            continue;
        }
        let colliding = tree
            .visit(&Query::rect(rect).omit(handle), |_| ControlFlow::Break(()))
            .is_ok_and(|flow| flow.is_break());
        drawn.elements += 1;
        drawn.colliding += usize::from(colliding);
        let colour = match event_of.get(&handle) {
            Some(&BEGAN) => {
                drawn.began += 1;
                BEGAN
            }
            Some(&colour) => {
                drawn.ended += 1;
                colour
            }
            None if colliding => COLLIDING,
            None => AGENT,
        };
        let (x0, y0, x1, y1) = view.fill_span(&rect);
        if (x1 - x0).max(y1 - y0) > BIG_PIXELS {
            big.push((view.edge_span(&rect), colour));
        } else {
            canvas.fill_rect(x0, y0, x1, y1, colour);
        }
    }
    let (min, max) = drawn.depths;
    for leaf in &leaves {
        let (x0, y0, x1, y1) = view.edge_span(&leaf.rect);
        canvas.outline(x0, y0, x1, y1, depth_colour(leaf.depth, min, max));
    }
    for ((x0, y0, x1, y1), colour) in big {
        canvas.outline(x0, y0, x1, y1, colour);
        canvas.outline(x0 + 1, y0 + 1, x1 - 1, y1 - 1, colour);
    }
    (canvas, drawn)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Rgba = rgb(0xff0000);

    #[test]
    fn fill_and_clip() {
        let mut c = Canvas::new(4, 3, BACKGROUND);
        c.fill_rect(-5, 1, 2, 10, RED);
        assert_eq!(c.pixel(0, 0), Some(BACKGROUND));
        assert_eq!(c.pixel(0, 1), Some(RED));
        assert_eq!(c.pixel(1, 2), Some(RED));
        assert_eq!(c.pixel(2, 2), Some(BACKGROUND));
        assert_eq!(c.pixel(4, 0), None);
        c.fill_rect(3, 0, 3, 3, RED); // empty
        assert_eq!(c.pixel(3, 0), Some(BACKGROUND));
    }

    #[test]
    fn outline_and_line() {
        let mut c = Canvas::new(5, 5, BACKGROUND);
        c.outline(0, 0, 4, 4, RED);
        assert_eq!(c.pixel(4, 2), Some(RED));
        assert_eq!(c.pixel(2, 4), Some(RED));
        assert_eq!(c.pixel(2, 2), Some(BACKGROUND));
        let mut d = Canvas::new(5, 5, BACKGROUND);
        d.line(0, 0, 4, 4, RED);
        d.line(4, 0, -10, 0, RED); // clipped
        for i in 0..5 {
            assert_eq!(d.pixel(i, i), Some(RED));
            assert_eq!(d.pixel(i, 0), Some(RED));
        }
        assert_eq!(d.pixel(1, 2), Some(BACKGROUND));
    }

    #[test]
    fn png_round_trip() {
        let mut c = Canvas::new(7, 5, BACKGROUND);
        c.fill_rect(1, 1, 3, 4, RED);
        let mut bytes = Vec::new();
        c.write_png(&mut bytes).expect("encode");
        let decoder = png::Decoder::new(io::Cursor::new(bytes));
        let mut reader = decoder.read_info().expect("header");
        assert_eq!(reader.info().color_type, png::ColorType::Indexed);
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        reader.next_frame(&mut buf).expect("frame");
        let palette = reader.info().palette.as_ref().expect("palette").to_vec();
        let colour = |i: usize| {
            let k = 3 * buf[i] as usize;
            [palette[k], palette[k + 1], palette[k + 2], 255]
        };
        assert_eq!(colour(0), BACKGROUND);
        assert_eq!(colour(7 + 1), RED);
    }

    #[test]
    fn gif_frames() {
        let mut gif = GifWriter::new(Vec::new(), 4, 4).expect("gif");
        let mut c = Canvas::new(4, 4, BACKGROUND);
        gif.add(&c, 5).expect("frame");
        c.put(1, 1, RED);
        gif.add(&c, 5).expect("frame");
        assert!(gif.add(&Canvas::new(3, 4, RED), 5).is_err());
        let bytes = gif.finish().expect("finish");
        assert!(bytes.starts_with(b"GIF89a"));
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(io::Cursor::new(bytes)).expect("header");
        let mut frames = Vec::new();
        while let Some(frame) = decoder.read_next_frame().expect("frame") {
            assert_eq!(frame.delay, 5);
            frames.push(frame.buffer.to_vec());
        }
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0][..4], BACKGROUND);
        assert_eq!(frames[1][4 * 5..4 * 6], RED); // pixel (1, 1)
    }

    /// Two touching elements and one apart in a 64-unit world, drawn one
    /// pixel a unit.
    fn three_elements() -> (flatquad::Quadtree, [Handle; 3], View) {
        let mut tree =
            flatquad::Quadtree::new(Rect::new(0.0, 0.0, 64.0, 64.0), 1, 3).expect("tree");
        let mut handles = [Handle::from_raw(0); 3];
        let rects = [(1.0, 5.0), (4.0, 8.0), (40.0, 44.0)];
        for (i, (lo, hi)) in rects.into_iter().enumerate() {
            handles[i] = tree
                .insert(Rect::new(lo, lo, hi, hi), i as u32)
                .expect("insert");
        }
        let view = View {
            x: 0.0,
            y: 0.0,
            side: 64.0,
            pixels: 64,
        };
        (tree, handles, view)
    }

    #[test]
    fn draws_leaves_and_elements() {
        let (tree, _, view) = three_elements();
        let (canvas, drawn) = draw_tree(&tree, &view, Events::default());
        assert_eq!(drawn.elements, 3);
        assert_eq!(drawn.colliding, 2);
        assert_eq!(drawn.leaves, tree.stats().leaves);
        assert_eq!(canvas.pixel(2, 2), Some(COLLIDING));
        assert_eq!(canvas.pixel(42, 42), Some(AGENT));
        // The root's cell edges are leaf outlines: the first and the last pixel.
        assert_ne!(canvas.pixel(0, 30), Some(BACKGROUND));
        assert_ne!(canvas.pixel(63, 30), Some(BACKGROUND));
        // Half the region: elements outside are not drawn.
        let half = View { side: 32.0, ..view };
        assert_eq!(draw_tree(&tree, &half, Events::default()).1.elements, 2);
    }

    #[test]
    fn marks_the_elements_of_the_events() {
        let (mut tree, [a, b, c], view) = three_elements();
        tree.insert(Rect::new(20.0, 40.0, 24.0, 44.0), 3)
            .expect("insert");
        let events = Events {
            began: &[[a, b]],
            ended: &[[b, c]],
        };
        let (canvas, drawn) = draw_tree(&tree, &view, events);
        assert_eq!((drawn.began, drawn.ended), (2, 1));
        assert_eq!(canvas.pixel(2, 2), Some(BEGAN));
        assert_eq!(canvas.pixel(7, 7), Some(BEGAN)); // began wins over ended
        assert_eq!(canvas.pixel(42, 42), Some(ENDED));
        assert_eq!(canvas.pixel(22, 42), Some(AGENT));
    }
}
