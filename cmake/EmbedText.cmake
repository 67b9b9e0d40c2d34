# cmake -DIN=<file> -DOUT=<file> -P EmbedText.cmake
# Writes the text of IN as a C++ raw string literal (for #include) to OUT.
file(READ ${IN} content)
file(WRITE ${OUT} "R\"GRAFTEMBED(${content})GRAFTEMBED\"\n")
