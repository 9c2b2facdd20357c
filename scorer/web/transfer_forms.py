"""The form of the import page (transfer.py): a match or hand file, uploaded or pasted.

Beside its routes by the package's rule (scorer/web/__init__.py): a blueprint ``x.py`` keeps its
form classes in ``x_forms.py``.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField

from .forms import Form, TextBox


class ImportForm(Form):
    """A ``scarto-match/1`` or ``scarto-hand/1`` file, uploaded or pasted."""

    file = FileField(_l("File (JSON)"))
    text = TextBox(_l("…or paste it here"))
