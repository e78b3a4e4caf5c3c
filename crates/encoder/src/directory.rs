//! Finding an encoder's two files in its directory, and reading them safely.

use std::path::{Path, PathBuf};

use crate::EncoderError;

/// The files of an encoder directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncoderFiles {
    /// The directory's base name (after resolving `.` and links): the encoder's name.
    pub name: String,
    /// The one `*.safetensors` file.
    pub table: PathBuf,
    /// `tokenizer.json`, or else the one `*.json` file whose name contains `tokenizer`.
    pub tokenizer: PathBuf,
}

impl EncoderFiles {
    /// The table and tokenizer in `dir`.
    ///
    /// # Errors
    /// [`EncoderError`] naming `dir`: not a directory, no table or several, no
    /// tokenizer JSON or several candidates (each named, with the fix).
    pub fn find(dir: &Path) -> Result<Self, EncoderError> {
        let real = std::fs::canonicalize(dir).map_err(|_| {
            EncoderError::invalid(
                dir,
                "no such directory; name a directory holding one *.safetensors table and its tokenizer JSON (scripts/setup.sh makes one at encoders/wordllama-l2-supercat)",
            )
        })?;
        if !real.is_dir() {
            return Err(EncoderError::invalid(
                dir,
                "is not a directory; name the directory holding the table and the tokenizer",
            ));
        }
        let entries = std::fs::read_dir(&real).map_err(|source| EncoderError::Read {
            place: dir.display().to_string(),
            source,
        })?;
        let mut names: Vec<String> = entries
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let tables: Vec<&String> = names
            .iter()
            .filter(|n| n.ends_with(".safetensors"))
            .collect();
        let table = real.join(the_one(
            dir,
            &tables,
            "holds no *.safetensors file; an encoder is a token-embedding table and its tokenizer",
            "tables",
            "keep one *.safetensors file per encoder directory",
        )?);
        let tokenizer = if names.iter().any(|n| n == "tokenizer.json") {
            real.join("tokenizer.json")
        } else {
            let candidates: Vec<&String> = names
                .iter()
                .filter(|n| n.contains("tokenizer") && n.ends_with(".json"))
                .collect();
            real.join(the_one(
                dir,
                &candidates,
                "holds no tokenizer JSON; put the table's tokenizer beside it as tokenizer.json",
                "tokenizer candidates",
                "name the right one tokenizer.json",
            )?)
        };
        let name = real.file_name().map_or_else(
            || "encoder".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Self {
            name,
            table,
            tokenizer,
        })
    }
}

/// The one name of `candidates`, or the refusal: `none` when there is none, the
/// names with `fix` when there are several `what`.
fn the_one<'n>(
    dir: &Path,
    candidates: &[&'n String],
    none: &str,
    what: &str,
    fix: &str,
) -> Result<&'n String, EncoderError> {
    match candidates {
        [one] => Ok(one),
        [] => Err(EncoderError::invalid(dir, none)),
        several => {
            let names: Vec<&str> = several.iter().map(|n| n.as_str()).collect();
            Err(EncoderError::invalid(
                dir,
                format!(
                    "holds {} {what} ({}); {fix}",
                    several.len(),
                    names.join(", ")
                ),
            ))
        }
    }
}

/// The bytes of `path`, refused unless it is a regular file (a FIFO or a device
/// would block the read or never end).
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>, EncoderError> {
    let metadata = std::fs::metadata(path).map_err(|source| EncoderError::Read {
        place: path.display().to_string(),
        source,
    })?;
    if !metadata.is_file() {
        return Err(EncoderError::invalid(
            path,
            "is not a regular file (a FIFO, device or directory); an encoder's files are ordinary files",
        ));
    }
    std::fs::read(path).map_err(|source| EncoderError::Read {
        place: path.display().to_string(),
        source,
    })
}
