"""Python failures: missing modules, pip, interpreters, managed environments, venvs."""

from __future__ import annotations

from tests.agent.rules.table import T

TRACE = 'Traceback (most recent call last):\n  File "/home/me/app.py", line 3, in <module>\n    import {0}\n'


def mnf(module: str) -> str:
    return TRACE.format(module.split(".")[0]) + f"ModuleNotFoundError: No module named '{module}'\n"


EXTERNALLY = (
    "error: externally-managed-environment\n\n× This environment is externally managed\n"
    "╰─> To install Python packages system-wide, try apt install\n    python3-xyz, where xyz is the "
    "package you are trying to\n    install.\n\n    If you wish to install a non-Debian-packaged "
    "Python package,\n    create a virtual environment using python3 -m venv path/to/venv.\n"
)

CASES = [
    T("python app.py", mnf("cv2"), "pip install opencv-python"),
    T("python3 app.py", mnf("yaml"), "pip install pyyaml"),
    T("python3 app.py", mnf("PIL"), "pip install pillow"),
    T("python train.py", mnf("sklearn"), "pip install scikit-learn"),
    T("python scrape.py", mnf("bs4"), "pip install beautifulsoup4"),
    T("python app.py", mnf("dateutil"), "pip install python-dateutil"),
    T("python app.py", mnf("dotenv"), "pip install python-dotenv", "powershell"),
    T("python app.py", mnf("Crypto"), "pip install pycryptodome"),
    T("python app.py", mnf("skimage"), "pip install scikit-image"),
    T("python app.py", mnf("attr"), "pip install attrs"),
    T("python app.py", mnf("serial"), "pip install pyserial"),
    T("python app.py", mnf("usb"), "pip install pyusb"),
    T("python app.py", mnf("jwt"), "pip install PyJWT"),
    T("python app.py", mnf("magic"), "pip install python-magic"),
    T("python app.py", mnf("docx"), "pip install python-docx"),
    T("python app.py", mnf("fitz"), "pip install PyMuPDF"),
    T("python app.py", mnf("google.protobuf"), "pip install protobuf"),
    T("python app.py", mnf("requests"), "pip install requests"),
    T("python app.py", mnf("flask_cors.extension"), "pip install Flask-Cors"),
    T("python3 app.py", mnf("numpy"), "python3 -m pip install numpy", first=False),
    T("py app.py", mnf("numpy"), "py -m pip install numpy", "powershell", first=False),
    T(
        "python app.py",
        'Traceback (most recent call last):\n  File "app.py", line 1, in <module>\n    import yaml\nImportError: No module named yaml',
        "pip install pyyaml",
    ),
    T("pip install requests", "bash: pip: command not found", "python3 -m pip install requests"),
    T(
        "pip3 install requests",
        "zsh: command not found: pip3",
        "python3 -m pip install requests",
        "zsh",
    ),
    T(
        "pip install requests",
        "pip : The term 'pip' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "py -m pip install requests",
        "powershell",
    ),
    T(
        "pip install requests",
        "'pip' is not recognized as an internal or external command,\noperable program or batch file.",
        "py -m pip install requests",
        "cmd",
    ),
    T(
        "python3 -m pip install x",
        "/usr/bin/python3: No module named pip",
        "sudo apt install python3-pip",
    ),
    T(
        "pip install requests",
        EXTERNALLY,
        "python3 -m venv .venv && . .venv/bin/activate && pip install requests",
    ),
    T("pip3 install --user black", EXTERNALLY, "pipx install black", first=False),
    T(
        "pip install requests",
        EXTERNALLY,
        "pip install requests --break-system-packages",
        first=False,
    ),
    T("python app.py", "python: command not found", "python3 app.py"),
    T(
        "python app.py",
        "Python was not found; run without arguments to install from the Microsoft Store, or disable this shortcut from Settings > Manage App Execution Aliases.",
        "py app.py",
        "powershell",
    ),
    T(
        "python manage.py",
        "python : The term 'python' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "py manage.py",
        "powershell",
    ),
    T("./build.py", "/usr/bin/env: 'python': No such file or directory", "python3 ./build.py"),
    T(
        "python main",
        "python: can't open file '/home/me/proj/main': [Errno 2] No such file or directory",
        "python main.py",
    ),
    T(
        "python3 server",
        "python3: can't open file 'server': [Errno 2] No such file or directory",
        "python3 server.py",
    ),
    T(
        "pip install cv2",
        "ERROR: Could not find a version that satisfies the requirement cv2 (from versions: none)\nERROR: No matching distribution found for cv2",
        "pip install opencv-python",
    ),
    T(
        "pip install tensorflow",
        "ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: none)\nERROR: No matching distribution found for tensorflow",
        "python3 -m pip install --upgrade pip && pip install tensorflow",
    ),
    T(
        "pip install sklearn",
        "The 'sklearn' PyPI package is deprecated, use 'scikit-learn'\n    rather than 'sklearn' for pip commands.",
        "pip install scikit-learn",
    ),
    T(
        "pip install -r requirement.txt",
        "ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirement.txt'",
        "pip install -r requirements.txt",
    ),
    T(
        "python3 -m venv .venv",
        "The virtual environment was not created successfully because ensurepip is not\navailable.  On Debian/Ubuntu systems, you need to install the python3-venv\npackage using the following command.\n\n    apt install python3.11-venv\n\nYou may need to use sudo with that command.",
        "sudo apt install python3.11-venv && python3 -m venv .venv",
    ),
    T(
        "pip install pycocotools",
        'error: Microsoft Visual C++ 14.0 or greater is required. Get it with "Microsoft C++ Build Tools"',
        "winget install -e --id Microsoft.VisualStudio.2022.BuildTools",
        "powershell",
    ),
    T(
        "source venv/bin/activate",
        "source : The term 'source' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "venv\\Scripts\\Activate.ps1",
        "powershell",
    ),
    T(
        "source .venv/bin/activate",
        "'source' is not recognized as an internal or external command,\noperable program or batch file.",
        ".venv\\Scripts\\activate.bat",
        "cmd",
    ),
    T(
        "pip install psycopg2",
        "    Error: pg_config executable not found.\n\n    pg_config is required to build psycopg2 from source.",
        "pip install psycopg2-binary",
    ),
]

CASES += [
    T(
        "source venv/bin/activate",
        "bash: venv/bin/activate: No such file or directory",
        "python3 -m venv venv && source venv/bin/activate",
    ),
    T(
        "source .venv/bin/activate",
        "bash: .venv/bin/activate: No such file or directory",
        "source venv/bin/activate",
        first=False,
    ),
]

CASES += [
    T(
        "python nlp.py",
        "OSError: [E050] Can't find model 'en_core_web_sm'. It doesn't seem to be a Python package or a valid path to a data directory.",
        "python3 -m spacy download en_core_web_sm",
    ),
    T("python video.py", mnf("ffmpeg"), "pip install ffmpeg-python"),
    T("python app.py", mnf("absl.flags"), "pip install absl-py"),
]
