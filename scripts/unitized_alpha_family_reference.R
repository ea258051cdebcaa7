#!/usr/bin/env Rscript
# Reference values for the unitizing alpha family of Krippendorff (2019,
# Content Analysis, 4th ed., section 12.6): uα (eq. 34), the binary |uα
# (eq. 35), the coding alpha cuα (eqs. 36-37) and each value's (k)uα with
# its coverage (eq. 38), computed once by quallmer 0.4.0's
# `compute_alpha_u` (R/alpha_u.R of the CRAN source, quallmer_0.4.0.tar.gz,
# or github.com/cran/quallmer at b54c54b) in a throwaway R:
#
#     apt-get install --no-install-recommends r-base-core r-cran-jsonlite
#     tar xzf quallmer_0.4.0.tar.gz quallmer/R/alpha_u.R
#     Rscript scripts/unitized_alpha_family_reference.R quallmer/R/alpha_u.R \
#         fixtures/agreement-unitized
#
# Reads the cases of OUT/expected.json (each coder's units as
# [start, end, code], 0-based, end exclusive) and adds the book's worked
# example (Figure 12.11: Alex, Paul and Suzan over 60 characters, where the
# book gives uα = 0.510, |uα = 0.413 and cuα = 0.724); writes
# OUT/family.json. quallmer counts 1-based inclusive positions: a unit
# [s, e) is start s + 1, end e there. Where quallmer finds no expected
# disagreement it gives 1 (or NA); the Rust test reads those as undefined.
suppressMessages(library(jsonlite))
args <- commandArgs(trailingOnly = TRUE)
source(args[1])
out <- if (length(args) > 1) args[2] else "fixtures/agreement-unitized"

frame <- function(units) {
  if (length(units) == 0) {
    return(data.frame(start = integer(0), end = integer(0), value = character(0)))
  }
  data.frame(
    start = vapply(units, function(u) as.integer(u[[1]]) + 1L, 1L),
    end = vapply(units, function(u) as.integer(u[[2]]), 1L),
    value = vapply(units, function(u) as.character(u[[3]]), ""),
    stringsAsFactors = FALSE
  )
}
num <- function(x) if (is.na(x)) NULL else unbox(x)

doc <- fromJSON(file.path(out, "expected.json"), simplifyVector = FALSE)
cases <- lapply(doc$cases, function(c) list(name = c$name, length = c$length, coders = c$coders))
book <- list(
  alex = list(list(0, 7, "1"), list(7, 13, "2"), list(30, 32, "5"), list(32, 37, "6"),
              list(37, 44, "6"), list(44, 60, "7")),
  paul = list(list(0, 7, "1"), list(7, 13, "3"), list(13, 21, "5"), list(32, 44, "6")),
  suzan = list(list(0, 7, "1"), list(7, 13, "4"), list(13, 21, "5"), list(32, 37, "6"),
               list(37, 41, "6"), list(41, 44, "6"))
)
cases[[length(cases) + 1]] <- list(name = "Krippendorff 2019, figure 12.11", length = 60, coders = book)

rows <- lapply(cases, function(c) {
  frames <- lapply(c$coders, frame)
  names(frames) <- NULL
  L <- as.integer(c$length)
  pv <- compute_alpha_u(frames, L, type = "per_value")
  per_value <- list()
  if (!is.data.frame(pv)) pv <- data.frame(value = character(0))
  for (i in seq_len(nrow(pv))) {
    per_value[[pv$value[i]]] <- list(alpha = num(pv$alpha[i]), coverage = num(pv$coverage[i]))
  }
  list(
    name = unbox(c$name),
    length = unbox(L),
    coders = lapply(c$coders, function(units) lapply(units, function(u) list(
      unbox(as.integer(u[[1]])), unbox(as.integer(u[[2]])), unbox(as.character(u[[3]]))))),
    alpha = num(compute_alpha_u(frames, L, type = "nominal")),
    binary = num(compute_alpha_u(frames, L, type = "binary")),
    coding = num(compute_alpha_u(frames, L, type = "cu_nominal")),
    per_value = if (length(per_value) == 0) setNames(list(), character(0)) else per_value
  )
})
result <- list(reference = unbox("quallmer 0.4.0 compute_alpha_u (Krippendorff 2019, section 12.6)"),
               cases = rows)
writeLines(toJSON(result, auto_unbox = FALSE, digits = NA, null = "null", pretty = 1),
           file.path(out, "family.json"))
cat(length(rows), "cases written to", file.path(out, "family.json"), "\n")
