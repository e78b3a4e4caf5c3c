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
        let table = match tables.as_slice() {
            [one] => real.join(one),
            [] => {
                return Err(EncoderError::invalid(
                    dir,
                    "holds no *.safetensors file; an encoder is a token-embedding table and its tokenizer",
                ))
            }
            several => {
                return Err(EncoderError::invalid(
                    dir,
                    format!(
                        "holds {} tables ({}); keep one *.safetensors file per encoder directory",
                        several.len(),
                        join(several)
                    ),
                ))
            }
        };
        let tokenizer = if names.iter().any(|n| n == "tokenizer.json") {
            real.join("tokenizer.json")
        } else {
            let candidates: Vec<&String> = names
                .iter()
                .filter(|n| n.contains("tokenizer") && n.ends_with(".json"))
                .collect();
            match candidates.as_slice() {
                [one] => real.join(one),
                [] => {
                    return Err(EncoderError::invalid(
                        dir,
                        "holds no tokenizer JSON; put the table's tokenizer beside it as tokenizer.json",
                    ))
                }
                several => {
                    return Err(EncoderError::invalid(
                        dir,
                        format!(
                            "holds {} tokenizer candidates ({}); name the right one tokenizer.json",
                            several.len(),
                            join(several)
                        ),
                    ))
                }
            }
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

fn join(names: &[&String]) -> String {
    names
        .iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
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
