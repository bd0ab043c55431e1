# Install rules and packages. From a build folder:
#   cpack -G DEB   -> cachescope-cli_<version>-<rev>_<arch>.deb (no Qt Widgets)
#                     cachescope_<version>-<rev>_<arch>.deb     (GUI, depends on the CLI)
#   cpack -G TGZ   -> cachescope-<version>-Linux.tar.gz (both programs)
# Files go to FHS places under the prefix (/usr in the .debs); the GUI's
# desktop id, icon name and AppStream id are one reverse-DNS name.
include(GNUInstallDirs)

set(CACHESCOPE_APP_ID org.cachescope.cachescope)
set(CACHESCOPE_DEB_RELEASE 1)
set(CACHESCOPE_MAINTAINER "cachescope maintainers <maintainers@cachescope.org>")
set(pkgdir ${CMAKE_CURRENT_BINARY_DIR}/package)

# ---- generated files: icons, man page and changelogs (gzip -9n: no timestamps)
add_executable(cachescope_render_icon ${CMAKE_CURRENT_LIST_DIR}/IconRenderer.cpp)
target_link_libraries(cachescope_render_icon PRIVATE Qt6::Gui Qt6::Svg)
set(CACHESCOPE_ICON_SIZES 16 24 32 48 64 128 256)
set(icon_pngs)
foreach(size ${CACHESCOPE_ICON_SIZES})
  list(APPEND icon_pngs ${pkgdir}/icons/${size}x${size}.png)
endforeach()
add_custom_command(OUTPUT ${icon_pngs}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${pkgdir}/icons
  COMMAND cachescope_render_icon ${PROJECT_SOURCE_DIR}/resources/cachescope.svg ${pkgdir}/icons ${CACHESCOPE_ICON_SIZES}
  DEPENDS cachescope_render_icon ${PROJECT_SOURCE_DIR}/resources/cachescope.svg
  COMMENT "Rendering the icon at ${CACHESCOPE_ICON_SIZES}"
  VERBATIM)

set(VERSION ${PROJECT_VERSION})
configure_file(${PROJECT_SOURCE_DIR}/resources/cachescope.1 ${pkgdir}/cachescope.1 @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog.in ${pkgdir}/changelog @ONLY)
add_custom_command(OUTPUT ${pkgdir}/cachescope.1.gz ${pkgdir}/changelog.Debian.gz
  COMMAND sh -c "gzip -9n < cachescope.1 > cachescope.1.gz && gzip -9n < changelog > changelog.Debian.gz"
  WORKING_DIRECTORY ${pkgdir}
  DEPENDS ${pkgdir}/cachescope.1 ${pkgdir}/changelog
  COMMENT "Compressing the man page and the changelog"
  VERBATIM)
add_custom_target(cachescope_package_files ALL DEPENDS ${icon_pngs} ${pkgdir}/cachescope.1.gz ${pkgdir}/changelog.Debian.gz)

# ---- cachescope-cli: the headless tool
install(TARGETS cachescope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
# Its man page is generated from the command tree (app/CMakeLists.txt,
# target cachescope_cli_docs); the completions are installed there.
add_custom_command(OUTPUT ${pkgdir}/cachescope-cli.1.gz
  COMMAND sh -c "gzip -9n < \"$1\" > cachescope-cli.1.gz" sh ${CACHESCOPE_CLI_MANPAGE}
  WORKING_DIRECTORY ${pkgdir}
  DEPENDS ${CACHESCOPE_CLI_MANPAGE} cachescope_cli_docs
  COMMENT "Compressing the cachescope-cli man page"
  VERBATIM)
add_custom_target(cachescope_cli_manpage_gz ALL DEPENDS ${pkgdir}/cachescope-cli.1.gz)
install(FILES ${pkgdir}/cachescope-cli.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${pkgdir}/changelog.Debian.gz
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/cachescope-cli COMPONENT cli)

# ---- cachescope-postgres, cachescope-mysql, cachescope-s3: the remote
# backends, modules the programs load when a location names one (their
# install rules are in core/CMakeLists.txt, component = backend), so that
# cachescope-cli itself depends on none of libpq, libmariadb and libcurl.
set(CACHESCOPE_REMOTE_COMPONENTS postgres mysql s3)
foreach(component ${CACHESCOPE_REMOTE_COMPONENTS})
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${pkgdir}/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/cachescope-${component} COMPONENT ${component})
endforeach()

# ---- cachescope: the GUI
install(TARGETS cachescope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gui)
install(FILES ${PROJECT_SOURCE_DIR}/resources/${CACHESCOPE_APP_ID}.desktop
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/applications COMPONENT gui)
install(FILES ${PROJECT_SOURCE_DIR}/resources/${CACHESCOPE_APP_ID}.metainfo.xml
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/metainfo COMPONENT gui)
install(FILES ${PROJECT_SOURCE_DIR}/resources/cachescope.svg
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/scalable/apps RENAME ${CACHESCOPE_APP_ID}.svg COMPONENT gui)
foreach(size ${CACHESCOPE_ICON_SIZES})
  install(FILES ${pkgdir}/icons/${size}x${size}.png
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/${size}x${size}/apps RENAME ${CACHESCOPE_APP_ID}.png COMPONENT gui)
endforeach()
install(FILES ${pkgdir}/cachescope.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT gui)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${pkgdir}/changelog.Debian.gz
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/cachescope COMPONENT gui)

# ---- CPack
set(CPACK_PACKAGE_NAME cachescope)
set(CPACK_PACKAGE_VENDOR "cachescope developers")
set(CPACK_PACKAGE_CONTACT "${CACHESCOPE_MAINTAINER}")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://cachescope.org/")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put that one summary
# above both packages' descriptions; each description's first line is its
# package's summary instead (body lines unindented, a blank line between
# paragraphs: CPack indents them and writes the " ." lines).
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL cli gui ${CACHESCOPE_REMOTE_COMPONENTS})
set(CPACK_COMPONENT_GUI_DEPENDS cli)
# A module is of one build: each depends on cachescope-cli (= version).
set(CPACK_COMPONENT_POSTGRES_DEPENDS cli)
set(CPACK_COMPONENT_MYSQL_DEPENDS cli)
set(CPACK_COMPONENT_S3_DEPENDS cli)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # name_version-release_arch.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${CACHESCOPE_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CACHESCOPE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SOURCE cachescope)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)   # cachescope: Depends cachescope-cli (= version)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS zstd)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME cachescope-cli)
# Opened when first used (core/util/LazyLibrary.h), so no ELF dependency
# shows them to shlibdeps: named here, added to what it finds.
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libarchive13, libssl3, libsqlite3-0")
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_DESCRIPTION "inspect build-cache stores and zstd snapshots from scripts
cachescope-cli reads the frame layout of any zstd file (and says whether a
parallel decoder can split it), writes and restores snapshots as sized,
checksummed zstd frames, and manages a build-cache store: upload, merge,
restore, evict, fsck and a crash-safe garbage collection of its pack. It
also browses the data of a self-hosted GitHub Actions cache server and
runs benchmarks. Output is a table or JSON.

This package holds the command-line tool only; it needs no display.")
# The remote backends are recommended: installed by default, left out with
# --no-install-recommends on a machine that reads local data only.
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "zstd, cachescope-postgres, cachescope-mysql, cachescope-s3")
set(CPACK_DEBIAN_POSTGRES_PACKAGE_NAME cachescope-postgres)
set(CPACK_DEBIAN_POSTGRES_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_POSTGRES_DESCRIPTION "PostgreSQL catalogs for cachescope
The module cachescope and cachescope-cli load to open the catalog of a
GitHub Actions cache server deployed on PostgreSQL (postgres:// locations),
through libpq.")
set(CPACK_DEBIAN_MYSQL_PACKAGE_NAME cachescope-mysql)
set(CPACK_DEBIAN_MYSQL_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_MYSQL_DESCRIPTION "MySQL and MariaDB catalogs for cachescope
The module cachescope and cachescope-cli load to open the catalog of a
GitHub Actions cache server deployed on MySQL or MariaDB (mysql://
locations), through MariaDB Connector/C.")
set(CPACK_DEBIAN_S3_PACKAGE_NAME cachescope-s3)
set(CPACK_DEBIAN_S3_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_S3_DESCRIPTION "S3 storage for cachescope
The module cachescope and cachescope-cli load to read and write the
storage of a GitHub Actions cache server kept in an S3-compatible bucket
(s3:// locations), through libcurl.")
set(CPACK_DEBIAN_GUI_PACKAGE_NAME cachescope)
set(CPACK_DEBIAN_GUI_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_GUI_DESCRIPTION "desktop inspector for build-cache stores and zstd snapshots
cachescope opens a build-cache store or any zstd file and shows what is
inside: the entries of a store with their parts and deduplicated chunks,
the frame layout of a zstd stream drawn to scale, and which objects a
garbage collection would keep or reclaim. Merge, evict, garbage-collect
and benchmark with progress and live graphs, compare runs side by side
and export charts as PNG, PDF or SVG.

The command-line tool is in the cachescope-cli package.")

set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)   # one .tar.gz with both programs
include(CPack)
