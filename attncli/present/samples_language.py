"""The words of attn samples, English and Spanish; present/language.py adds them to its table."""

SAMPLE_PHRASES: dict[str, tuple[str, str]] = {
    "sample_name": ("Sample", "Ejemplo"),
    "sample_holds": ("What it holds", "Qué contiene"),
    "sample_try": ("Try", "Prueba"),
    "samples_where": (
        "Installed in {folder}; -i NAME reads one from any folder",
        "Instalados en {folder}; -i NOMBRE lee uno desde cualquier carpeta",
    ),
}
