//! The OLED model's panel as a PNG file: what a player would see, lit
//! pixels white on black, each drawn as a square of `scale` pixels.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use crate::face::{HEIGHT, WIDTH};

/// Writes the panel that `lit(x, y)` describes to `path` as a greyscale PNG.
pub fn write_panel(
    path: &Path,
    scale: u32,
    lit: impl Fn(usize, usize) -> bool,
) -> Result<(), std::io::Error> {
    let scale = scale.max(1);
    let (w, h) = (WIDTH as u32 * scale, HEIGHT as u32 * scale);
    let mut data = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let on = lit((x / scale) as usize, (y / scale) as usize);
            data.push(if on { 0xff } else { 0x00 });
        }
    }
    let file = BufWriter::new(File::create(path)?);
    let mut encoder = png::Encoder::new(file, w, h);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer
        .write_image_data(&data)
        .map_err(std::io::Error::other)?;
    writer.finish().map_err(std::io::Error::other)?;
    Ok(())
}
