; Inno Setup 6 script: a per-user Windows installer for the PyInstaller bundle dist\desktop-copilot\.
; No administrator rights are asked for: the app goes to %LOCALAPPDATA%\Programs\Desktop Copilot,
; with a Start menu shortcut, an optional desktop shortcut and an uninstaller (Settings > Apps).
;
;   pyinstaller --noconfirm --distpath dist --workpath build\pyinstaller packaging\desktop-copilot.spec
;   iscc /DAppVersion=0.1.0 packaging\installer.iss        -> dist\DesktopCopilot-0.1.0-setup.exe
;
; Paths are relative to this file (packaging\). .github/workflows/release.yml runs exactly this.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Desktop Copilot"
#define AppExe "desktop-copilot.exe"

[Setup]
; The AppId identifies the app for upgrades and the uninstaller: never change it.
AppId={{605D3500-1416-4C4A-867F-57409DC9E50F}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Desktop Copilot maintainers
VersionInfoVersion={#AppVersion}
; Per-user install: no UAC prompt; {autopf} is %LOCALAPPDATA%\Programs in this mode.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
SetupIconFile=..\resources\icons\desktop-copilot.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
OutputDir=..\dist
OutputBaseFilename=DesktopCopilot-{#AppVersion}-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "..\dist\desktop-copilot\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"; Comment: "Chat with Claude"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Files the app writes next to itself (none today); conversations and settings live in the user's
; AppData folders and are kept, as people expect from an uninstaller.
Type: filesandordirs; Name: "{app}\_internal\__pycache__"
