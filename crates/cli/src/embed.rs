//! `verdict embed`: a table's text column through a text encoder, written to a file.

use verdict::embedding::{embed_table, write_embeddings};
use verdict::io::{Source, TextEncoder};

use crate::args::EmbedArgs;

pub fn run(args: &EmbedArgs) -> anyhow::Result<()> {
    let out = crate::output::outputs().file(&args.out, "--out");
    verdict::outputs::Outputs::check_with_inputs(&[Some(out.clone())], &[&args.file])?;
    let encoder = TextEncoder::load(&args.encoder, args.normalize_embeddings)?;
    let embeddings = embed_table(
        &Source::File(args.file.clone()),
        &args.text_col,
        &args.id_col,
        &encoder,
    )?;
    write_embeddings(&out, &embeddings, &args.id_col)?;
    Ok(())
}
