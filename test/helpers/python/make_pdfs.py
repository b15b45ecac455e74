"""PDFs for the PDF editor's tests, made with PyMuPDF (Debian's python3-fitz).

    python3 make_pdfs.py <folder>

Writes into the folder: words.pdf (three US Letter pages, a sentence each at a known place),
script.pdf (a page whose OpenAction is JavaScript that would show an alert), locked.pdf (AES-256,
a user password) and broken.pdf (a PDF cut in half). Prints, as JSON, each sentence's page
(0-based) and the rectangle of each of its words in PDF points, y down from the page's top.
"""
import json
import sys

import fitz

SENTENCES = [
    'The agreement starts on this page.',
    'Payment is due within thirty days.',
    'Signed by both parties below.',
]

folder = sys.argv[1]
doc = fitz.open()
words = []
for i, sentence in enumerate(SENTENCES):
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 160 + 40 * i), sentence, fontsize=16, fontname='helv')
    for x0, y0, x1, y1, word, *_ in page.get_text('words'):
        words.append({'page': i, 'word': word, 'rect': [x0, y0, x1, y1]})
doc.save(f'{folder}/words.pdf')
doc.save(
    f'{folder}/locked.pdf',
    encryption=fitz.PDF_ENCRYPT_AES_256,
    user_pw='secret',
    owner_pw='owner-secret',
)
whole = doc.tobytes()
with open(f'{folder}/broken.pdf', 'wb') as f:
    f.write(whole[: len(whole) // 2])

script = fitz.open()
page = script.new_page(width=612, height=792)
page.insert_text((72, 160), 'This page carries a script.', fontsize=16)
script.xref_set_key(script.pdf_catalog(), 'OpenAction', "<< /S /JavaScript /JS (app.alert\\('hello'\\);) >>")
script.save(f'{folder}/script.pdf')

json.dump({'words': words}, sys.stdout)
