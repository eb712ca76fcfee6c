# The golden scripts' JSON writer (jsonlite may be absent, and it stops at 15 significant digits):
# numbers with 17 significant digits; a length-1 vector is a scalar unless marked with vec(), a
# longer one an array; named lists are objects, other lists arrays; NULL is null.
to_json <- function(v, indent = "") {
  if (is.null(v)) return("null")
  if (is.list(v)) {
    inner <- paste0(indent, " ")
    if (!is.null(names(v))) {
      items <- vapply(names(v), function(nm) paste0(inner, '"', nm, '": ', to_json(v[[nm]], inner)), "")
      return(paste0("{\n", paste(items, collapse = ",\n"), "\n", indent, "}"))
    }
    items <- vapply(v, function(e) paste0(inner, to_json(e, inner)), "")
    return(paste0("[\n", paste(items, collapse = ",\n"), "\n", indent, "]"))
  }
  items <- if (is.character(v)) paste0('"', v, '"') else if (is.logical(v)) ifelse(v, "true", "false") else sprintf("%.17g", as.numeric(v))
  if (length(v) == 1 && is.null(attr(v, "vector"))) items else paste0("[", paste(items, collapse = ", "), "]")
}
# Marks a vector to be written as an array even when it has one entry.
vec <- function(x) { attr(x, "vector") <- TRUE; x }
