; Termwise per-user installer (no admin rights): built by installer/build.py.
;
; makensis defines (build.py passes them):
;   VERSION       version from pyproject.toml, e.g. 0.1.0
;   VERSION_QUAD  the same as four numbers for the file properties, e.g. 0.1.0.0
;   PAYLOAD_NSH   generated include with the TERMWISE_INSTALL_FILES and
;                 TERMWISE_UNINSTALL_FILES macros (the frozen one-folder app)
;   OUTFILE       path of the installer to write
;
; Silent use (also documented in the README):
;   Termwise-Setup-<version>.exe /S [/AUTOSTART=0|1] [/TERMINAL=0|1] [/PATH=0|1] [/D=dir]
;     /AUTOSTART  start Termwise at login (default 0)
;     /TERMINAL   add "Termwise PowerShell" and "Termwise Command Prompt" to Windows
;                 Terminal (default 1)
;     /PATH       put termwise.exe on the user PATH (default 1)
;     /D=dir      install folder (must be last; default %LOCALAPPDATA%\Programs\Termwise)
;   Without an option, a component keeps the choice of the previous install.
;   uninstall.exe /S [/PURGE=1]
;     /PURGE      also delete settings, memory and logs (default 0: they are kept)

Unicode true
; A 64-bit installer where this makensis has the amd64 stubs (Debian's nsis does); the
; official Windows build of NSIS (choco install nsis) ships only x86 stubs, where
; `Target amd64-unicode` is an error: build a 32-bit installer there (it installs the
; same 64-bit app into the same per-user places).
!if /FileExists "${NSISDIR}\Stubs\lzma_solid-amd64-unicode"
  Target amd64-unicode
!endif
ManifestDPIAware true
SetCompressor /SOLID lzma

!ifndef VERSION
  !error "VERSION is not defined: build with installer/build.py"
!endif
!ifndef VERSION_QUAD
  !define VERSION_QUAD "0.0.0.0"
!endif
!ifndef PAYLOAD_NSH
  !error "PAYLOAD_NSH is not defined: build with installer/build.py"
!endif
!ifndef OUTFILE
  !define OUTFILE "Termwise-Setup-${VERSION}.exe"
!endif

!define APP "Termwise"
!define CLI_EXE "termwise.exe"
; Windows file names ignore case, so the tray cannot be called Termwise.exe next to
; termwise.exe.
!define TRAY_EXE "TermwiseTray.exe"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Termwise"
!define APP_KEY "Software\Termwise"
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define ENV_KEY "Environment"
!define FRAGMENT_DIR "$LOCALAPPDATA\Microsoft\Windows Terminal\Fragments\Termwise"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"
!include "Sections.nsh"
!include "WinMessages.nsh"
!include "StrFunc.nsh"
!include "${PAYLOAD_NSH}"

${StrStr}
${StrRep}
${UnStrRep}

Name "${APP}"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\Termwise"
InstallDirRegKey HKCU "${APP_KEY}" "InstallDir"
BrandingText "${APP} ${VERSION}"

VIProductVersion "${VERSION_QUAD}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "LegalCopyright" "MIT licence"

!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_SMALLDESC
!define MUI_FINISHPAGE_RUN "$INSTDIR\${TRAY_EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP} now"
!define MUI_UNCOMPONENTSPAGE_SMALLDESC

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

; ---------------------------------------------------------------- helpers

; Write $1 to the open file handle $0 as UTF-8 (FileWrite would use the ANSI code
; page and mangle a user name outside it; Windows Terminal reads UTF-8).
Function WriteUtf8
  Push $2
  Push $3
  System::Call 'kernel32::WideCharToMultiByte(i 65001, i 0, w r1, i -1, p 0, i 0, p 0, p 0) i .r2'
  ${If} $2 > 1
    System::Alloc $2
    Pop $3
    System::Call 'kernel32::WideCharToMultiByte(i 65001, i 0, w r1, i -1, p r3, i r2, p 0, p 0)'
    IntOp $2 $2 - 1
    System::Call 'kernel32::WriteFile(p r0, p r3, i r2, *i 0, p 0)'
    System::Free $3
  ${EndIf}
  Pop $3
  Pop $2
FunctionEnd

; Broadcast that the environment changed, so new Explorer/terminal windows see PATH.
!macro BroadcastEnvironment
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=3000
!macroend

; Take $INSTDIR out of the user PATH, leaving every other entry as it was.
; UN is "" in the installer and "un." in the uninstaller.
!macro RemovePathEntry UN
  ReadRegStr $0 HKCU "${ENV_KEY}" "Path"
  StrLen $1 $0
  ; A value this long may have come back cut (see the PATH section): leave it alone.
  IntOp $2 ${NSIS_MAX_STRLEN} - 3
  ${If} $0 != ""
  ${AndIf} $1 < $2
    !if "${UN}" == "un."
      ${UnStrRep} $1 ";$0;" ";$INSTDIR;" ";"
    !else
      ${StrRep} $1 ";$0;" ";$INSTDIR;" ";"
    !endif
    ${If} $1 != ";$0;"
      StrCpy $1 $1 "" 1
      StrCpy $1 $1 -1
      ${If} $1 == ""
        DeleteRegValue HKCU "${ENV_KEY}" "Path"
      ${Else}
        WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$1"
      ${EndIf}
      !insertmacro BroadcastEnvironment
    ${EndIf}
  ${EndIf}
  DeleteRegValue HKCU "${APP_KEY}" "AddedToPath"
!macroend

!macro RemoveFragment
  Delete "${FRAGMENT_DIR}\termwise.json"
  RMDir "${FRAGMENT_DIR}"
!macroend

; End the processes whose program is the file PATH: politely (taskkill's close request)
; with FORCE 0, by TerminateProcess with FORCE 1. Other programs of the same name (another
; Termwise install, anything else) are left alone: `taskkill /IM` would end them too.
; Uses $2-$9.
!macro EndProcessesAt PATH FORCE
  ; The program's long path, as the process list reports it (/D= may be an 8.3 name).
  System::Call 'kernel32::GetLongPathNameW(w "${PATH}", w .r9, i ${NSIS_MAX_STRLEN}) i .r8'
  ${If} $8 = 0
  ${OrIf} $8 >= ${NSIS_MAX_STRLEN}
    StrCpy $9 "${PATH}"
  ${EndIf}
  System::Alloc 65536
  Pop $2
  System::Call 'kernel32::K32EnumProcesses(p r2, i 65536, *i .r3) i .r8'
  ${If} $8 = 0
    StrCpy $3 0
  ${EndIf}
  StrCpy $4 0
  ${DoWhile} $4 < $3
    IntPtrOp $5 $2 + $4
    System::Call '*$5(i .r6)'
    ; PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_TERMINATE
    System::Call 'kernel32::OpenProcess(i 0x1001, i 0, i r6) p .r5'
    ${If} $5 != 0
      StrCpy $7 ${NSIS_MAX_STRLEN}
      System::Call 'kernel32::QueryFullProcessImageNameW(p r5, i 0, w .r8, *i r7 .r7) i .r7'
      ; LogicLib's == ignores case, as Windows paths do.
      ${If} $7 != 0
      ${AndIf} $8 == $9
        !if ${FORCE} == 1
          System::Call 'kernel32::TerminateProcess(p r5, i 1)'
        !else
          nsExec::Exec '"$SYSDIR\taskkill.exe" /PID $6'
          Pop $7
        !endif
      ${EndIf}
      System::Call 'kernel32::CloseHandle(p r5)'
    ${EndIf}
    IntOp $4 $4 + 4
  ${Loop}
  System::Free $2
!macroend

; A running Termwise keeps its executable open, so replacing or removing the files
; would fail. Opening it for writing tells whether it is in use (and only our copy,
; wherever other programs of the same name run). Ask (unless silent), then end it:
; politely first, then by force.
!macro CloseRunning EXE
  ${If} ${FileExists} "$INSTDIR\${EXE}"
    ClearErrors
    FileOpen $0 "$INSTDIR\${EXE}" a
    ${If} ${Errors}
      ${IfNot} ${Silent}
        MessageBox MB_OKCANCEL|MB_ICONINFORMATION \
          "${APP} is running and will be closed; shells running in its sessions end." \
          IDOK +2
        Abort
      ${EndIf}
      DetailPrint "Closing ${EXE}"
      !insertmacro EndProcessesAt "$INSTDIR\${EXE}" 0
      Sleep 1000
      !insertmacro EndProcessesAt "$INSTDIR\${EXE}" 1
      ; Give Windows a moment to release the file.
      StrCpy $1 0
      ${Do}
        Sleep 250
        IntOp $1 $1 + 1
        ClearErrors
        FileOpen $0 "$INSTDIR\${EXE}" a
        ${IfNot} ${Errors}
          FileClose $0
          ${Break}
        ${EndIf}
      ${LoopUntil} $1 >= 20
    ${Else}
      FileClose $0
    ${EndIf}
  ${EndIf}
!macroend

; ---------------------------------------------------------------- options

; /NAME=0|1 on the command line selects or clears a section (used by silent installs).
!macro OptionSelects NAME SECTION
  ClearErrors
  ${GetOptions} $CMDLINE "/${NAME}=" $R0
  ${IfNot} ${Errors}
    ${If} $R0 == "1"
      !insertmacro SelectSection ${SECTION}
    ${ElseIf} $R0 == "0"
      !insertmacro UnselectSection ${SECTION}
    ${EndIf}
  ${EndIf}
!macroend

; ---------------------------------------------------------------- install

Section "${APP} (required)" SecCore
  SectionIn RO
  !insertmacro CloseRunning "${TRAY_EXE}"
  !insertmacro CloseRunning "${CLI_EXE}"
  ; PyInstaller's _internal folder is ours alone: clear it, so an upgrade leaves no
  ; libraries of the old version behind.
  RMDir /r "$INSTDIR\_internal"
  !insertmacro TERMWISE_INSTALL_FILES
  SetOutPath "$INSTDIR"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortCut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${TRAY_EXE}" "" "$INSTDIR\${TRAY_EXE}" 0 \
    SW_SHOWNORMAL "" "Terminal helper: explains failures and suggests fixes"

  WriteRegStr HKCU "${APP_KEY}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${APP_KEY}" "Version" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\${TRAY_EXE}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "Add termwise to PATH" SecPath
  ; PATH is read as one string of at most NSIS_MAX_STRLEN characters: a longer one
  ; would come back cut, and writing it back would lose entries. Leave it alone then.
  ClearErrors
  ReadRegStr $0 HKCU "${ENV_KEY}" "Path"
  ${If} ${Errors}
    ; Either there is no PATH yet, or it is too long for NSIS to read at all; writing
    ; would wipe it in the second case, so look for the value by name.
    StrCpy $3 0
    ${Do}
      ClearErrors
      EnumRegValue $4 HKCU "${ENV_KEY}" $3
      ${If} ${Errors}
      ${OrIf} $4 == ""
        ${ExitDo}
      ${EndIf}
      ${If} $4 == "Path"
        DetailPrint "Your PATH is too long to edit safely; add $INSTDIR to it yourself."
        Goto path_done
      ${EndIf}
      IntOp $3 $3 + 1
    ${Loop}
  ${EndIf}
  StrLen $1 $0
  StrLen $2 "$INSTDIR"
  IntOp $1 $1 + $2
  IntOp $1 $1 + 2
  ${If} $1 >= ${NSIS_MAX_STRLEN}
    DetailPrint "Your PATH is too long to edit safely; add $INSTDIR to it yourself."
    Goto path_done
  ${EndIf}
  ; StrStr compares like LogicLib's ==, ignoring case as Windows does with paths; an entry
  ; with a final backslash names the same folder.
  ${StrStr} $1 ";$0;" ";$INSTDIR;"
  ${StrStr} $2 ";$0;" ";$INSTDIR\;"
  ${If} $1 != ""
  ${OrIf} $2 != ""
    DetailPrint "$INSTDIR is already on PATH"
    Goto path_done
  ${EndIf}
  ${If} $0 == ""
    StrCpy $0 "$INSTDIR"
  ${Else}
    StrCpy $2 $0 1 -1
    ${If} $2 == ";"
      StrCpy $0 "$0$INSTDIR"
    ${Else}
      StrCpy $0 "$0;$INSTDIR"
    ${EndIf}
  ${EndIf}
  WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$0"
  WriteRegDWORD HKCU "${APP_KEY}" "AddedToPath" 1
  !insertmacro BroadcastEnvironment
  path_done:
SectionEnd

Section /o "Start ${APP} when I log in" SecAutostart
  WriteRegStr HKCU "${RUN_KEY}" "${APP}" '"$INSTDIR\${TRAY_EXE}"'
SectionEnd

Section "Windows Terminal profiles" SecTerminal
  ; A fragment adds profiles without touching the user's settings.json.
  ${StrRep} $R1 "$INSTDIR\${CLI_EXE}" "\" "\\"
  CreateDirectory "${FRAGMENT_DIR}"
  ClearErrors
  FileOpen $0 "${FRAGMENT_DIR}\termwise.json" w
  ${If} ${Errors}
    DetailPrint "Could not write the Windows Terminal profiles."
    Goto terminal_done
  ${EndIf}
  StrCpy $1 '{$\r$\n  "profiles": [$\r$\n'
  Call WriteUtf8
  StrCpy $1 '    {$\r$\n      "name": "Termwise PowerShell",$\r$\n      "commandline": "\"$R1\" shell --shell powershell",$\r$\n      "startingDirectory": "%USERPROFILE%",$\r$\n      "hidden": false$\r$\n    },$\r$\n'
  Call WriteUtf8
  StrCpy $1 '    {$\r$\n      "name": "Termwise Command Prompt",$\r$\n      "commandline": "\"$R1\" shell --shell cmd",$\r$\n      "startingDirectory": "%USERPROFILE%",$\r$\n      "hidden": false$\r$\n    }$\r$\n'
  Call WriteUtf8
  StrCpy $1 '  ]$\r$\n}$\r$\n'
  Call WriteUtf8
  FileClose $0
  terminal_done:
SectionEnd

; A component left out on a re-install is taken away, so the choices hold as made.
; The choices are remembered as the defaults of the next install (an upgrade with
; just /S keeps them).
Section "-Apply choices"
  ${If} ${SectionIsSelected} ${SecAutostart}
    WriteRegDWORD HKCU "${APP_KEY}" "Autostart" 1
  ${Else}
    WriteRegDWORD HKCU "${APP_KEY}" "Autostart" 0
    DeleteRegValue HKCU "${RUN_KEY}" "${APP}"
  ${EndIf}
  ${If} ${SectionIsSelected} ${SecTerminal}
    WriteRegDWORD HKCU "${APP_KEY}" "Terminal" 1
  ${Else}
    WriteRegDWORD HKCU "${APP_KEY}" "Terminal" 0
    !insertmacro RemoveFragment
  ${EndIf}
  ${If} ${SectionIsSelected} ${SecPath}
    WriteRegDWORD HKCU "${APP_KEY}" "Path" 1
  ${Else}
    WriteRegDWORD HKCU "${APP_KEY}" "Path" 0
    !insertmacro RemovePathEntry ""
  ${EndIf}
SectionEnd

LangString DESC_Core ${LANG_ENGLISH} "The Termwise tray app and the termwise command."
LangString DESC_Path ${LANG_ENGLISH} "Run termwise from any terminal (adds the install folder to your PATH)."
LangString DESC_Autostart ${LANG_ENGLISH} "Start the tray app when you log in to Windows."
LangString DESC_Terminal ${LANG_ENGLISH} "Add Termwise PowerShell and Termwise Command Prompt profiles to Windows Terminal."

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecCore} $(DESC_Core)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecPath} $(DESC_Path)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecAutostart} $(DESC_Autostart)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecTerminal} $(DESC_Terminal)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; An earlier install's choice (0 or 1 under our key) becomes the default.
!macro RememberedSelects NAME SECTION
  ClearErrors
  ReadRegDWORD $R0 HKCU "${APP_KEY}" "${NAME}"
  ${IfNot} ${Errors}
    ${If} $R0 == 1
      !insertmacro SelectSection ${SECTION}
    ${Else}
      !insertmacro UnselectSection ${SECTION}
    ${EndIf}
  ${EndIf}
!macroend

Function .onInit
  SetShellVarContext current
  !insertmacro RememberedSelects "Autostart" ${SecAutostart}
  !insertmacro RememberedSelects "Terminal" ${SecTerminal}
  !insertmacro RememberedSelects "Path" ${SecPath}
  !insertmacro OptionSelects "AUTOSTART" ${SecAutostart}
  !insertmacro OptionSelects "TERMINAL" ${SecTerminal}
  !insertmacro OptionSelects "PATH" ${SecPath}
FunctionEnd

; ---------------------------------------------------------------- uninstall

Section "un.${APP}" UnSecCore
  SectionIn RO
  SetShellVarContext current
  !insertmacro CloseRunning "${TRAY_EXE}"
  !insertmacro CloseRunning "${CLI_EXE}"
  Delete "$SMPROGRAMS\${APP}.lnk"
  DeleteRegValue HKCU "${RUN_KEY}" "${APP}"

  !insertmacro RemoveFragment
  !insertmacro RemovePathEntry "un."

  !insertmacro TERMWISE_UNINSTALL_FILES
  RMDir /r "$INSTDIR\_internal"  ; files an older version left there
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"

  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  DeleteRegKey HKCU "${APP_KEY}"
SectionEnd

Section /o "un.Also delete my settings, memory and logs" UnSecPurge
  ; Where platformdirs puts Termwise's user data on Windows (appauthor=False).
  RMDir /r "$LOCALAPPDATA\termwise"
  RMDir /r "$APPDATA\termwise"
  RMDir /r "$LOCALAPPDATA\Temp\termwise"
SectionEnd

LangString DESC_UnCore ${LANG_ENGLISH} "Remove the program, shortcuts, PATH entry and profiles."
LangString DESC_UnPurge ${LANG_ENGLISH} "Also delete %LOCALAPPDATA%\termwise (settings, memory, logs). Kept unless ticked."

!insertmacro MUI_UNFUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${UnSecCore} $(DESC_UnCore)
  !insertmacro MUI_DESCRIPTION_TEXT ${UnSecPurge} $(DESC_UnPurge)
!insertmacro MUI_UNFUNCTION_DESCRIPTION_END

Function un.onInit
  SetShellVarContext current
  !insertmacro OptionSelects "PURGE" ${UnSecPurge}
FunctionEnd
