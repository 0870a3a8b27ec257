"""What players see in a browser: the live board (`fudge serve`) and the after-action report (`fudge report`).

HTML built here escapes every text that came from a log or a sheet (names, aspects, reasons) with
`html.escape`; nothing here writes to the store.
"""
