"""npm, yarn, pnpm and node failures."""

from __future__ import annotations

from tests.agent.rules.table import T

MISSING7 = (
    'npm ERR! Missing script: "strat"\nnpm ERR! \nnpm ERR! Did you mean this?\n'
    'npm ERR!     npm run start # run the "start" package script\nnpm ERR! \n'
    "npm ERR! To see a list of scripts, run:\nnpm ERR!   npm run\n\n"
    "npm ERR! A complete log of this run can be found in:\n"
)
MISSING10 = (
    'npm error Missing script: "biuld"\nnpm error\nnpm error Did you mean this?\n'
    'npm error   npm run build # run the "build" package script\nnpm error\n'
    "npm error To see a list of scripts, run:\nnpm error   npm run\n"
)

CASES = [
    T("npm run strat", MISSING7, "npm run start"),
    T("npm run biuld", MISSING10, "npm run build"),
    T(
        "npm run tset",
        "npm ERR! missing script: tset\n\nnpm ERR! A complete log of this run can be found in:",
        "npm run test",
    ),
    T(
        "yarn strat",
        'yarn run v1.22.19\nerror Command "strat" not found.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.',
        "yarn start",
    ),
    T(
        "yarn run devv",
        'Usage Error: Couldn\'t find a script named "devv".\n\n$ yarn run [--inspect] [--inspect-brk] [-T,--top-level] [-B,--binaries-only] <scriptName> ...',
        "yarn run dev",
    ),
    T(
        "pnpm run biuld",
        ' ERR_PNPM_NO_SCRIPT  Missing script: biuld\n\nCommand "biuld" not found. Did you mean "pnpm run build"?',
        "pnpm run build",
    ),
    T(
        "npm start",
        "Error: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle [as _listen2] (node:net:1817:16)\n  code: 'EADDRINUSE',\n  port: 3000",
        "lsof -i :3000",
    ),
    T(
        "npm start",
        "Error: listen EADDRINUSE: address already in use :::3000",
        "fuser -k 3000/tcp",
        first=False,
    ),
    T(
        "npm run dev",
        "Error: listen EADDRINUSE: address already in use 127.0.0.1:5173",
        "Get-NetTCPConnection -LocalPort 5173",
        "powershell",
    ),
    T(
        "npm run dev",
        "Error: listen EADDRINUSE: address already in use 127.0.0.1:5173",
        "netstat -ano | findstr :5173",
        "cmd",
    ),
    T("python manage.py runserver", "Error: That port is already in use.", "lsof -i :8000"),
    T("python -m http.server 8080", "OSError: [Errno 98] Address already in use", "lsof -i :8080"),
    T(
        "uvicorn main:app --port 8001",
        "ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 8001): address already in use",
        "lsof -i :8001",
    ),
    T(
        "uvicorn main:app",
        "ERROR:    [WinError 10048] error while attempting to bind on address ('127.0.0.1', 8000): only one usage of each socket address (protocol/network address/port) is normally permitted",
        "netstat -ano | findstr :8000",
        "powershell",
        first=False,
    ),
    T("go run .", "listen tcp :8080: bind: address already in use\nexit status 1", "lsof -i :8080"),
    T(
        "docker run -p 5432:5432 postgres",
        "docker: Error response from daemon: driver failed programming external connectivity on endpoint x: Bind for 0.0.0.0:5432 failed: port is already allocated.",
        "lsof -i :5432",
    ),
    T(
        "npm install",
        "npm ERR! code ENOENT\nnpm ERR! syscall open\nnpm ERR! path /home/me/proj/package.json\nnpm ERR! errno -2\nnpm ERR! enoent ENOENT: no such file or directory, open '/home/me/proj/package.json'\nnpm ERR! enoent This is related to npm not being able to find a file.",
        "npm init -y",
    ),
    T(
        "npm run build",
        "npm error code ENOENT\nnpm error syscall open\nnpm error path C:\\Users\\me\\proj\\package.json\nnpm error errno -4058\nnpm error enoent Could not read package.json: Error: ENOENT: no such file or directory, open 'C:\\Users\\me\\proj\\package.json'",
        "npm init -y",
        "powershell",
    ),
    T(
        "npm isntall",
        'Unknown command: "isntall"\n\nDid you mean this?\n    npm install # Install a package\nTo see a list of supported npm commands, run:\n  npm help',
        "npm install",
    ),
    T(
        "npm instal express",
        "\nUsage: npm <command>\n\nwhere <command> is one of:\n    access, adduser, audit, bin, bugs, c, cache, ci, cit,\n    install, ...\n\nDid you mean this?\n    install\n",
        "npm install express",
    ),
    T(
        "yarn install react",
        'yarn install v1.22.19\nerror `install` has been replaced with `add` to add new dependencies. Run "yarn add react" instead.',
        "yarn add react",
    ),
    T(
        "npm install",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! \nnpm ERR! While resolving: app@0.1.0\nnpm ERR! Found: react@18.2.0",
        "npm install --legacy-peer-deps",
    ),
    T(
        "npm start",
        "> app@0.1.0 start\n> react-scripts start\n\nsh: 1: react-scripts: not found",
        "npm install && npm start",
    ),
    T(
        "npm run dev",
        "> dev\n> vite\n\n'vite' is not recognized as an internal or external command,\noperable program or batch file.",
        "npm install && npm run dev",
        "cmd",
    ),
    T(
        "node server.js",
        "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module 'express'\nRequire stack:\n- /home/me/app/server.js",
        "npm install express",
    ),
    T(
        "node index.mjs",
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@aws-sdk/client-s3' imported from /app/index.mjs",
        "npm install @aws-sdk/client-s3",
    ),
    T(
        "npm start",
        "Error: error:0308010C:digital envelope routines::unsupported\n    at new Hash (node:internal/crypto/hash:71:19)\n  opensslErrorStack: [ 'error:03000086:digital envelope routines::initialization error' ],\n  library: 'digital envelope routines',\n  code: 'ERR_OSSL_EVP_UNSUPPORTED'",
        "NODE_OPTIONS=--openssl-legacy-provider npm start",
    ),
    T(
        "npm start",
        "code: 'ERR_OSSL_EVP_UNSUPPORTED'",
        '$env:NODE_OPTIONS = "--openssl-legacy-provider"; npm start',
        "powershell",
    ),
]
